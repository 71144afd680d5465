package sandbox

import (
	"errors"
	"runtime"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/plan"
	"github.com/zsandbox/zsandbox/seccomp"
)

// compileSeccomp compiles the plan's filter: the built-in program, or the
// built-in or the user's base list plus the socket rules; a bad user
// profile is a usage error, anything else means the sandbox cannot be built.
func compileSeccomp(sc plan.Seccomp) ([]byte, error) {
	return compileSeccompFor(sc, runtime.GOARCH, seccomp.Compile)
}

// compileSeccompFor is compileSeccomp on the architecture arch with the
// compiler compile (seccomp.Compile; in a cgo-free build it returns
// seccomp.ErrUnsupported).
func compileSeccompFor(sc plan.Seccomp, arch string, compile func(*specs.LinuxSeccomp) ([]byte, error)) ([]byte, error) {
	if sc.User == nil {
		if bpf, ok := seccomp.BuiltinFor(arch, sc.Sockets); ok {
			return bpf, nil
		}
	}
	prof := sc.User
	if prof == nil {
		prof = seccomp.Default()
	}
	bpf, err := compile(seccomp.WithSockets(prof, sc.Sockets))
	var pe *seccomp.ProfileError
	if errors.Is(err, seccomp.ErrUnsupported) {
		return nil, noCompiler(sc.User != nil, arch)
	}
	if errors.As(err, &pe) {
		return nil, exit.Usagef("%v", pe)
	}
	if err != nil {
		return nil, exit.NotRun("seccomp filter: " + err.Error())
	}
	return bpf, nil
}

// noCompiler is a build without cgo that would have to compile the
// filter: for a user profile, or for the built-in one on an architecture
// with no precompiled program (seccomp.BuiltinFor). Nothing runs.
func noCompiler(user bool, arch string) error {
	if user {
		return exit.NotRun("seccomp filter: this zsandbox was built without cgo, so it cannot compile a profile",
			"drop --seccomp-profile, or use a build with cgo and libseccomp (scripts/build.sh)")
	}
	return exit.NotRun("seccomp filter: this zsandbox was built without cgo and holds no precompiled seccomp program for linux/"+arch,
		"use a build with cgo and libseccomp (scripts/build.sh), or add the program: on a linux/"+arch+" machine with cgo run go test ./seccomp -run TestBuiltinIsCurrent -update")
}
