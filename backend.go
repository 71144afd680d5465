package main

import (
	"errors"
	"os"
	"runtime"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/plan"
	"github.com/zsandbox/zsandbox/seccomp"
)

// parseBackend resolves --backend; auto is the platform's full backend.
func parseBackend(s string) (string, error) {
	switch s {
	case "", "auto":
		if runtime.GOOS == "darwin" {
			return "seatbelt", nil
		}
		return "bwrap", nil
	case "bwrap", "landlock", "seatbelt":
		return s, nil
	}
	return "", exit.Usagef("--backend %q: must be auto, bwrap, landlock or seatbelt", s)
}

// userProfile reads and checks the user's --seccomp-profile file.
func userProfile(file string) (*specs.LinuxSeccomp, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, exit.Usagef("--seccomp-profile %q: %v", file, err)
	}
	prof, err := seccomp.Parse(data, file)
	if err != nil {
		return nil, exit.Usagef("%v", err)
	}
	return prof, nil
}

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
	if errors.As(err, &pe) {
		return nil, exit.Usagef("%v", pe)
	}
	if err != nil {
		return nil, exit.NotRun("seccomp filter: " + err.Error())
	}
	return bpf, nil
}
