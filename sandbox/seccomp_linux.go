package sandbox

import (
	"errors"
	"runtime"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/plan"
	"github.com/zsandbox/zsandbox/seccomp"
)

// compileSeccomp compiles the plan's filter: the built-in program, or the
// built-in or the user's base list plus the socket rules; a bad user
// profile is a usage error, anything else means the sandbox cannot be built.
func compileSeccomp(sc plan.Seccomp) ([]byte, error) {
	if sc.User == nil {
		if bpf, ok := seccomp.Builtin(sc.Sockets); ok {
			return bpf, nil
		}
	}
	prof := sc.User
	if prof == nil {
		prof = seccomp.Default()
	}
	bpf, err := seccomp.Compile(seccomp.WithSockets(prof, sc.Sockets))
	var pe *seccomp.ProfileError
	if errors.Is(err, seccomp.ErrUnsupported) {
		return nil, exit.NotRun("seccomp filter: this zsandbox was built without cgo, so it cannot compile a profile (only the built-in program for "+runtime.GOARCH+" is in it)",
			"drop --seccomp-profile, or use a build with cgo and libseccomp (scripts/build.sh)")
	}
	if errors.As(err, &pe) {
		return nil, exit.Usagef("%v", pe)
	}
	if err != nil {
		return nil, exit.NotRun("seccomp filter: " + err.Error())
	}
	return bpf, nil
}
