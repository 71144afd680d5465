package main

import (
	"os"
	"runtime"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/zsandbox/zsandbox/exit"
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
