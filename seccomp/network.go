package seccomp

import (
	"slices"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// Socket constants; the same on every architecture zsandbox builds for.
const (
	afUnix        = 1
	sockStream    = 1
	sockDgram     = 2
	sockRaw       = 3
	sockSeqpacket = 5
	sockTypeMask  = 0xf // SOCK_TYPE_MASK: the type without SOCK_CLOEXEC and SOCK_NONBLOCK
)

// WithNetworkDeny returns a copy of p that also enforces --network deny; p is
// not changed. bwrap's empty network namespace already cuts IP, loopback
// included; the filter cuts what a namespace does not:
//
//   - socket fails with EPERM for every family, AF_UNIX too: a path socket in
//     a directory the sandbox can see (a tmux server in /tmp,
//     /var/run/docker.sock) or an abstract one is a route out of it.
//   - socketpair stays usable for AF_UNIX SOCK_STREAM and SOCK_SEQPACKET,
//     the connected pairs programs use to talk to their own children, and
//     fails with EPERM otherwise: a datagram pair (SOCK_DGRAM, or SOCK_RAW,
//     which unix sockets treat as datagram) can sendto() any named socket,
//     /dev/log or a daemon's notify socket. The type is compared under
//     SOCK_TYPE_MASK so SOCK_CLOEXEC or SOCK_NONBLOCK cannot dodge the rule.
//     The family is compared as a whole 64-bit value, so a caller that sets
//     junk above the int is refused rather than let through.
//   - socketcall, i386's multiplexer, is denied outright: it carries
//     socket()'s arguments in memory, where seccomp cannot look. amd64 and
//     arm64 have no socketcall, and Compile kills every non-native ABI, so
//     there the rule only records the intent.
//
// The trade-off: a program that needs a socket of its own inside the sandbox
// (a test suite that serves on a unix socket in its temp dir) fails under
// network deny, and needs --network allow.
//
// Rules of p for these syscalls are replaced, never loosened beyond the
// above: rules naming socket or socketcall are dropped for the deny; a
// permissive rule naming socketpair is replaced by the two AF_UNIX
// allowances (if p denies by default) or by nothing (if p allows by
// default, and the EPERM rules apply); restrictive socketpair rules are kept.
func WithNetworkDeny(p *specs.LinuxSeccomp) *specs.LinuxSeccomp {
	out := cloneProfile(p)
	pairAllowed, pairDenied := false, false
	kept := out.Syscalls[:0]
	for _, r := range out.Syscalls {
		r.Names = slices.DeleteFunc(r.Names, func(n string) bool {
			switch {
			case n == "socket" || n == "socketcall":
				return true
			case n == "socketpair" && permissive(r.Action):
				pairAllowed = true
				return true
			case n == "socketpair" && len(r.Args) == 0:
				pairDenied = true
			}
			return false
		})
		if len(r.Names) > 0 {
			kept = append(kept, r)
		}
	}
	out.Syscalls = append(kept, networkRules(out, pairAllowed, pairDenied)...)
	return out
}

// networkRules are the socket rules WithNetworkDeny adds to p, leaving out
// what p's default action or its remaining rules already decide.
func networkRules(p *specs.LinuxSeccomp, pairAllowed, pairDenied bool) []specs.LinuxSyscall {
	eperm := uint(errnoEPERM)
	var rules []specs.LinuxSyscall
	if verdictOf(p.DefaultAction, p.DefaultErrnoRet) != verdictOf(specs.ActErrno, &eperm) {
		rules = append(rules, deny([]string{"socket", "socketcall"}))
	}
	switch {
	case pairDenied:
		// An unconditional restrictive rule already refuses every socketpair.
	case permissive(p.DefaultAction):
		rules = append(rules,
			deny([]string{"socketpair"}, specs.LinuxSeccompArg{Index: 0, Value: afUnix, Op: specs.OpNotEqual}),
			deny([]string{"socketpair"}, sockType(sockDgram)),
			deny([]string{"socketpair"}, sockType(sockRaw)))
	case pairAllowed:
		family := specs.LinuxSeccompArg{Index: 0, Value: afUnix, Op: specs.OpEqualTo}
		rules = append(rules,
			allow([]string{"socketpair"}, family, sockType(sockStream)),
			allow([]string{"socketpair"}, family, sockType(sockSeqpacket)))
	}
	return rules
}

// sockType matches socketpair's type argument, flags masked off.
func sockType(t uint64) specs.LinuxSeccompArg {
	return specs.LinuxSeccompArg{Index: 1, Value: sockTypeMask, ValueTwo: t, Op: specs.OpMaskedEqual}
}

func deny(names []string, args ...specs.LinuxSeccompArg) specs.LinuxSyscall {
	eperm := uint(errnoEPERM)
	return specs.LinuxSyscall{Names: names, Action: specs.ActErrno, ErrnoRet: &eperm, Args: args}
}

func allow(names []string, args ...specs.LinuxSeccompArg) specs.LinuxSyscall {
	return specs.LinuxSyscall{Names: names, Action: specs.ActAllow, Args: args}
}

// cloneProfile copies p deeply, so the copy can be changed freely.
func cloneProfile(p *specs.LinuxSeccomp) *specs.LinuxSeccomp {
	out := *p
	out.DefaultErrnoRet = clonePtr(p.DefaultErrnoRet)
	out.Architectures = slices.Clone(p.Architectures)
	out.Flags = slices.Clone(p.Flags)
	out.Syscalls = nil
	for _, r := range p.Syscalls {
		out.Syscalls = append(out.Syscalls, specs.LinuxSyscall{
			Names:    slices.Clone(r.Names),
			Action:   r.Action,
			ErrnoRet: clonePtr(r.ErrnoRet),
			Args:     slices.Clone(r.Args),
		})
	}
	return &out
}

func clonePtr[T any](v *T) *T {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}
