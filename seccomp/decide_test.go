package seccomp

import (
	"fmt"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// decide returns the verdict (as text) a profile gives one call, by
// libseccomp's rules on a 64-bit ABI: an unconditional rule for the syscall
// wins, else the rules whose every comparison holds, else the default. It
// lets the pure tests check what a profile means on every OS; the Linux tests
// check the compiled filter against the kernel.
func decide(t *testing.T, p *specs.LinuxSeccomp, name string, args ...uint64) string {
	t.Helper()
	var uncond, cond []string
	for _, r := range p.Syscalls {
		if !contains(r.Names, name) {
			continue
		}
		key := verdictOf(r.Action, r.ErrnoRet).String()
		switch {
		case len(r.Args) == 0:
			uncond = append(uncond, key)
		case argsMatch(r.Args, args):
			cond = append(cond, key)
		}
	}
	switch {
	case len(uncond) > 0:
		return uncond[0]
	case len(cond) > 0:
		for _, c := range cond[1:] {
			if c != cond[0] {
				t.Fatalf("%s%x: matching rules disagree: %v", name, args, cond)
			}
		}
		return cond[0]
	}
	return verdictOf(p.DefaultAction, p.DefaultErrnoRet).String()
}

func (v verdict) String() string {
	if v.action == specs.ActErrno || v.action == specs.ActTrace {
		return fmt.Sprintf("%s(%d)", v.action, v.errno)
	}
	return string(v.action)
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

func argsMatch(rule []specs.LinuxSeccompArg, args []uint64) bool {
	for _, a := range rule {
		var v uint64
		if int(a.Index) < len(args) {
			v = args[a.Index]
		}
		if !compare(a, v) {
			return false
		}
	}
	return true
}

const (
	allowed = "SCMP_ACT_ALLOW"
	eperm   = "SCMP_ACT_ERRNO(1)"
	enosys  = "SCMP_ACT_ERRNO(38)"
)
