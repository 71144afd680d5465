package seccomp

import (
	"slices"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// Socket constants; the same on every architecture zsandbox builds for.
const (
	afUnix        = 1
	afInet        = 2
	afInet6       = 10
	afNetlink     = 16
	netlinkRoute  = 0  // NETLINK_ROUTE: the one netlink protocol the allowlist keeps
	afMax         = 46 // AF_MAX: one past the newest family (AF_MCTP) in Linux 6.x
	sockStream    = 1
	sockDgram     = 2
	sockRaw       = 3
	sockSeqpacket = 5
	sockTypeMask  = 0xf        // SOCK_TYPE_MASK: the type without SOCK_CLOEXEC and SOCK_NONBLOCK
	intMask       = 0xffffffff // the bits of an int argument the kernel reads
)

// ioUring are the io_uring system calls. An io_uring can create a socket
// (IORING_OP_SOCKET) and connect it (IORING_OP_CONNECT) without socket(2)
// or connect(2), where the filter cannot see it, so every socket rule comes
// with them refused.
var ioUring = []string{"io_uring_setup", "io_uring_enter", "io_uring_register"}

// Sockets says which sockets the filter refuses on top of a profile.
type Sockets struct {
	// Network is --network deny: every family but AF_UNIX (bwrap's empty
	// network namespace already cuts IP; the filter cuts what a namespace
	// does not, such as AF_VSOCK to a hypervisor).
	Network bool
	// Unix refuses AF_UNIX sockets, for when the kernel cannot tell a
	// socket the command made from a host daemon's (/run/docker.sock, a
	// tmux server in /tmp, D-Bus, X11, ssh-agent): without Landlock's
	// LANDLOCK_ACCESS_FS_RESOLVE_UNIX (ABI 9) connect(2) to a path socket
	// goes through, read-only mount or not.
	Unix bool
	// Inet is the allowlist: only AF_UNIX (unless Unix), AF_INET,
	// AF_INET6 and AF_NETLINK with NETLINK_ROUTE (getaddrinfo's and
	// getifaddrs' look at the interfaces). The network namespace holds only
	// loopback and the proxy's listener, but a namespace does not fence
	// every family: AF_VSOCK reaches the hypervisor, others (AF_PACKET,
	// AF_BLUETOOTH, AF_CAN...) are attack surface no proxy client needs,
	// and NETLINK_KOBJECT_UEVENT hears the host's device events in a
	// namespace that root's caller made without a user namespace.
	Inet bool
}

// allowed reports whether s lets socket(2) make a socket of family f.
func (s Sockets) allowed(f uint64) bool {
	switch {
	case f == afUnix:
		return !s.Unix
	case s.Network:
		return false
	case s.Inet:
		return f == afInet || f == afInet6 || f == afNetlink
	}
	return true
}

// WithNetworkDeny is WithSockets(p, Sockets{Network: true, Unix: true}): the
// filter of --network deny without --allow-unix-sockets.
func WithNetworkDeny(p *specs.LinuxSeccomp) *specs.LinuxSeccomp {
	return WithSockets(p, Sockets{Network: true, Unix: true})
}

// WithSockets returns a copy of p that also refuses the sockets s names; p
// is not changed. With anything to refuse:
//
//   - socket fails with EPERM for the refused families: all of them with
//     both, AF_UNIX only with Unix, all but AF_UNIX with Network. An
//     AF_UNIX socket is refused by the int the kernel reads (junk above it
//     cannot dodge the rule); one that is allowed must be exactly AF_UNIX.
//   - with Unix, socketpair stays usable for AF_UNIX SOCK_STREAM and
//     SOCK_SEQPACKET, the connected pairs programs use to talk to their own
//     children, and fails with EPERM otherwise: a datagram pair (SOCK_DGRAM,
//     or SOCK_RAW, which unix sockets treat as datagram) can sendto() any
//     named socket, /dev/log or a daemon's notify socket. The type is
//     compared under SOCK_TYPE_MASK so SOCK_CLOEXEC or SOCK_NONBLOCK cannot
//     dodge the rule. The family is compared as a whole 64-bit value, so a
//     caller that sets junk above the int is refused rather than let through.
//   - io_uring_setup, io_uring_enter and io_uring_register fail with EPERM:
//     IORING_OP_SOCKET and IORING_OP_CONNECT are a route to any socket that
//     the filter cannot see.
//   - socketcall, i386's multiplexer, is denied outright: it carries
//     socket()'s arguments in memory, where seccomp cannot look. amd64 and
//     arm64 have no socketcall, and Compile kills every non-native ABI, so
//     there the rule only records the intent.
//
// Rules of p for these syscalls are replaced, never loosened beyond the
// above: rules naming socketcall or io_uring are dropped for the deny; a
// permissive rule (SCMP_ACT_TRACE counts as one, see mayRun) naming socket is cut down to the allowed families (each
// named exactly); a restrictive one is kept, or dropped when every socket is
// refused anyway. With Unix, a permissive rule naming socketpair is replaced
// by the two AF_UNIX allowances (if p denies by default) or by nothing (if p
// allows by default, and the EPERM rules apply); restrictive socketpair
// rules are kept.
func WithSockets(p *specs.LinuxSeccomp, s Sockets) *specs.LinuxSeccomp {
	out := cloneProfile(p)
	if !s.Network && !s.Unix && !s.Inet {
		return out
	}
	var st ruleState
	kept := out.Syscalls[:0]
	for _, r := range out.Syscalls {
		r.Names = slices.DeleteFunc(r.Names, func(n string) bool { return st.take(r, n, s) })
		if len(r.Names) > 0 {
			kept = append(kept, r)
		}
	}
	out.Syscalls = append(kept, socketRules(out, s, st)...)
	return out
}

// ruleState is what WithSockets learnt from p's rules while dropping them.
type ruleState struct {
	socketAllows            []specs.LinuxSyscall // p's permissive rules naming socket
	socketDenied            bool                 // p refuses every socket
	pairAllowed, pairDenied bool
}

// take reports whether rule r's name n is dropped, noting what it said.
func (st *ruleState) take(r specs.LinuxSyscall, n string, s Sockets) bool {
	switch {
	case n == "socketcall" || slices.Contains(ioUring, n):
		return true
	case n == "socket" && mayRun(r.Action):
		st.socketAllows = append(st.socketAllows, specs.LinuxSyscall{Names: []string{"socket"}, Action: r.Action, Args: r.Args})
		return true
	case n == "socket":
		st.socketDenied = st.socketDenied || len(r.Args) == 0
		return s.Network && s.Unix
	case n == "socketpair" && s.Unix && mayRun(r.Action):
		st.pairAllowed = true
		return true
	case n == "socketpair" && s.Unix && len(r.Args) == 0:
		st.pairDenied = true
	}
	return false
}

// socketRules are the rules WithSockets adds to p, leaving out what p's
// default action or its remaining rules already decide.
func socketRules(p *specs.LinuxSeccomp, s Sockets, st ruleState) []specs.LinuxSyscall {
	eperm := uint(errnoEPERM)
	var rules []specs.LinuxSyscall
	alreadyEPERM := verdictOf(p.DefaultAction, p.DefaultErrnoRet) == verdictOf(specs.ActErrno, &eperm)
	always := append([]string{"socketcall"}, ioUring...)
	if s.Network && s.Unix {
		always = append([]string{"socket"}, always...)
	}
	if !alreadyEPERM {
		rules = append(rules, deny(always))
	}
	if !(s.Network && s.Unix) && !st.socketDenied {
		rules = append(rules, familyRules(p, s, st.socketAllows)...)
	}
	if s.Unix {
		rules = append(rules, pairRules(p, st.pairAllowed, st.pairDenied)...)
	}
	return rules
}

// familyRules refuse the families s names in socket and keep p's
// permissive socket rules for the others, each family named exactly.
func familyRules(p *specs.LinuxSeccomp, s Sockets, allows []specs.LinuxSyscall) []specs.LinuxSyscall {
	var rules []specs.LinuxSyscall
	for _, r := range allows {
		for f := uint64(0); f < afMax; f++ {
			if !s.allowed(f) || !familyMatches(r.Args, f) {
				continue
			}
			args, ok := familyArgs(r.Args, f, s)
			if ok {
				rules = append(rules, specs.LinuxSyscall{Names: r.Names, Action: r.Action, Args: args})
			}
		}
	}
	if !mayRun(p.DefaultAction) {
		return rules // what no rule allows, the default refuses
	}
	if s.Inet {
		return append(rules, inetDenies(s)...)
	}
	if s.Unix {
		return append(rules, deny([]string{"socket"}, specs.LinuxSeccompArg{Index: 0, Value: intMask, ValueTwo: afUnix, Op: specs.OpMaskedEqual}))
	}
	return append(rules, deny([]string{"socket"}, specs.LinuxSeccompArg{Index: 0, Value: afUnix, Op: specs.OpNotEqual}))
}

// familyArgs are a permissive socket rule's comparisons for family f alone:
// the family named exactly, and under the allowlist AF_NETLINK cut down to
// NETLINK_ROUTE (ok is false when the rule's own protocol comparisons
// refuse that protocol).
func familyArgs(ruleArgs []specs.LinuxSeccompArg, f uint64, s Sockets) (args []specs.LinuxSeccompArg, ok bool) {
	args = []specs.LinuxSeccompArg{{Index: 0, Value: f, Op: specs.OpEqualTo}}
	routeOnly := s.Inet && f == afNetlink
	for _, a := range ruleArgs {
		switch {
		case a.Index == 0:
		case a.Index == 2 && routeOnly:
			if !compare(a, netlinkRoute) {
				return nil, false
			}
		default:
			args = append(args, a)
		}
	}
	if routeOnly {
		args = append(args, specs.LinuxSeccompArg{Index: 2, Value: netlinkRoute, Op: specs.OpEqualTo})
	}
	return args, true
}

// inetDenies refuse, over a profile that allows by default, every family
// the allowlist does not need: each one below AF_MAX by the int the kernel
// reads, and any value from AF_MAX up as a whole 64-bit value (a family a
// newer kernel adds, or junk above the int).
func inetDenies(s Sockets) []specs.LinuxSyscall {
	var rules []specs.LinuxSyscall
	for f := uint64(0); f < afMax; f++ {
		if !s.allowed(f) {
			rules = append(rules, deny([]string{"socket"}, specs.LinuxSeccompArg{Index: 0, Value: intMask, ValueTwo: f, Op: specs.OpMaskedEqual}))
		}
	}
	// A netlink protocol is compared as a whole 64-bit value: junk above
	// the int is refused rather than read as NETLINK_ROUTE.
	rules = append(rules, deny([]string{"socket"},
		specs.LinuxSeccompArg{Index: 0, Value: intMask, ValueTwo: afNetlink, Op: specs.OpMaskedEqual},
		specs.LinuxSeccompArg{Index: 2, Value: netlinkRoute, Op: specs.OpNotEqual}))
	return append(rules, deny([]string{"socket"}, specs.LinuxSeccompArg{Index: 0, Value: afMax, Op: specs.OpGreaterEqual}))
}

// familyMatches reports whether a rule's comparisons on argument 0 (the
// family) hold for family f.
func familyMatches(args []specs.LinuxSeccompArg, f uint64) bool {
	for _, a := range args {
		if a.Index == 0 && !compare(a, f) {
			return false
		}
	}
	return true
}

// compare is one argument comparison as the kernel's filter makes it, on a
// 64-bit ABI.
func compare(a specs.LinuxSeccompArg, v uint64) bool {
	switch a.Op {
	case specs.OpNotEqual:
		return v != a.Value
	case specs.OpLessThan:
		return v < a.Value
	case specs.OpLessEqual:
		return v <= a.Value
	case specs.OpEqualTo:
		return v == a.Value
	case specs.OpGreaterEqual:
		return v >= a.Value
	case specs.OpGreaterThan:
		return v > a.Value
	case specs.OpMaskedEqual:
		return v&a.Value == a.ValueTwo
	}
	panic("unknown op " + a.Op) // validate refuses unknown operators
}

// pairRules keep socketpair to connected AF_UNIX pairs.
func pairRules(p *specs.LinuxSeccomp, pairAllowed, pairDenied bool) []specs.LinuxSyscall {
	switch {
	case pairDenied:
		// An unconditional restrictive rule already refuses every socketpair.
	case mayRun(p.DefaultAction):
		return []specs.LinuxSyscall{
			deny([]string{"socketpair"}, specs.LinuxSeccompArg{Index: 0, Value: afUnix, Op: specs.OpNotEqual}),
			deny([]string{"socketpair"}, sockType(sockDgram)),
			deny([]string{"socketpair"}, sockType(sockRaw))}
	case pairAllowed:
		family := specs.LinuxSeccompArg{Index: 0, Value: afUnix, Op: specs.OpEqualTo}
		return []specs.LinuxSyscall{
			allow([]string{"socketpair"}, family, sockType(sockStream)),
			allow([]string{"socketpair"}, family, sockType(sockSeqpacket))}
	}
	return nil
}

// mayRun reports whether action a can let a socket call run. SCMP_ACT_TRACE
// fails with ENOSYS only while no tracer is attached: the command can trace
// its own child (PTRACE_O_TRACESECCOMP) and let each traced call through, so
// for the sockets it counts as an allow, not a refusal.
func mayRun(a specs.LinuxSeccompAction) bool {
	return permissive(a) || a == specs.ActTrace
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
