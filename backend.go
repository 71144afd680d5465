package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/policy"
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
	return "", usageErrorf("--backend %q: must be auto, bwrap, landlock or seatbelt", s)
}

// aloneConfig is what the Landlock-only backend enforces for p.
func aloneConfig(p *policy.Policy) landlock.AloneConfig {
	c := landlock.AloneConfig{Writable: p.WritablePaths(), NetworkDeny: p.Network == policy.NetworkDeny}
	for _, h := range p.Hidden {
		if h.Exists {
			c.Hidden = append(c.Hidden, h.Path)
		} else {
			c.HiddenMissing = append(c.HiddenMissing, h.Path)
		}
	}
	return c
}

// aloneSelf refuses --backend landlock when zsandbox's own binary lies in
// a writable root: without mounts it cannot be kept read-only, and a
// command could replace what the next call runs outside any sandbox.
func aloneSelf(p *policy.Policy) error {
	exe := selfExe()
	if root, ok := p.RootFinder()(exe); ok {
		return &policy.UnsafeError{
			Msg:  fmt.Sprintf("--backend landlock: zsandbox's own binary %q lies inside the writable root %q, and without mounts it cannot be kept read-only: the command could replace what your next call runs", exe, root),
			Hint: "install zsandbox outside the writable roots (for example in /usr/local/bin), or run from another directory",
		}
	}
	return nil
}

// execOptions are the bwrap plan options exec uses, shared with explain so
// that what explain prints is what exec runs.
func execOptions() bwrap.Options {
	return bwrap.Options{Seccomp: true}
}

// landlockConfig is what the stage 2 enforces inside bwrap.
func landlockConfig(p *policy.Policy, rc runConfig) landlock.Config {
	return landlock.Config{Mode: rc.landlock, Writable: p.WritablePaths(), NetworkDeny: p.Network == policy.NetworkDeny}
}

// sandboxCommand is the command bwrap runs: the user's, or, with Landlock
// on, zsandbox itself (by descriptor, so a hidden or deleted binary path
// does not matter) as the stage 2 that restricts itself and execs it.
func sandboxCommand(p *policy.Policy, rc runConfig, argv []string) []string {
	if rc.landlock == landlock.ModeOff {
		return argv
	}
	return landlockConfig(p, rc).Command(fmt.Sprintf("/proc/self/fd/%d", bwrap.ExeFD), argv)
}

// seccompProfile is the filter for p: the built-in or the user's base list,
// plus the --network deny additions.
func seccompProfile(p *policy.Policy, rc runConfig) (*specs.LinuxSeccomp, error) {
	prof := seccomp.Default()
	if rc.seccompProfile != "" {
		data, err := os.ReadFile(rc.seccompProfile)
		if err != nil {
			return nil, usageErrorf("--seccomp-profile %q: %v", rc.seccompProfile, err)
		}
		if prof, err = seccomp.Parse(data, rc.seccompProfile); err != nil {
			return nil, usageErrorf("%v", err)
		}
	}
	if p.Network == policy.NetworkDeny {
		prof = seccomp.WithNetworkDeny(prof)
	}
	return prof, nil
}

// compileSeccomp compiles the filter for p; a bad user profile is a usage
// error, anything else means the sandbox cannot be built.
func compileSeccomp(p *policy.Policy, rc runConfig) ([]byte, error) {
	if rc.seccompProfile == "" {
		if bpf, ok := seccomp.Builtin(p.Network == policy.NetworkDeny); ok {
			return bpf, nil
		}
	}
	prof, err := seccompProfile(p, rc)
	if err != nil {
		return nil, err
	}
	bpf, err := seccomp.Compile(prof)
	var pe *seccomp.ProfileError
	if errors.As(err, &pe) {
		return nil, usageErrorf("%v", pe)
	}
	if err != nil {
		return nil, sandboxError("seccomp filter: " + err.Error() + "; the command did not run")
	}
	return bpf, nil
}
