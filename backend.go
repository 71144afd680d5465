package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/exit"
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
	return "", exit.Usagef("--backend %q: must be auto, bwrap, landlock or seatbelt", s)
}

// aloneConfig is what the Landlock-only backend enforces for p.
func aloneConfig(p *policy.Policy) landlock.AloneConfig {
	c := landlock.AloneConfig{Writable: p.WritablePaths(), NetworkDeny: p.Network == policy.NetworkDeny, UnixSockets: p.UnixSockets}
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

// unixSocketsWarning is the warning line of --allow-unix-sockets (and its
// explain line): what the command can reach with it.
const unixSocketsWarning = "--allow-unix-sockets: the command can connect to the host's unix sockets, so its daemons become reachable: " +
	"/run/docker.sock (root on the host), D-Bus (systemd-run --user runs anything outside), tmux (send-keys types into your shell), " +
	"X11 (keystrokes into the desktop) and ssh-agent (signs with your keys)"

// warnUnixSockets prints the --allow-unix-sockets warning line, per run.
func warnUnixSockets(p *policy.Policy, rc runConfig) {
	if p.UnixSockets && rc.warn {
		fmt.Fprintf(os.Stderr, "zsandbox: warning: %s (--no-warning silences this)\n", unixSocketsWarning)
	}
}

// execOptions are the bwrap plan options exec uses, shared with explain so
// that what explain prints is what exec runs.
func execOptions() bwrap.Options {
	return bwrap.Options{Seccomp: true}
}

// landlockConfig is what the stage 2 enforces inside bwrap: the fence
// planned here, in the parent, for the ABI probed here. The stage 2 applies
// exactly that or refuses to run (landlock.PlannedError).
func landlockConfig(p *policy.Policy, rc runConfig) landlock.Config {
	return landlock.Config{Mode: rc.landlock, Writable: p.WritablePaths(), NetworkDeny: p.Network == policy.NetworkDeny,
		UnixSockets: p.UnixSockets, ABI: rc.landlockABI}
}

// landlockPlan is the Landlock ruleset exec applies, which explain prints:
// the stage 2's inside bwrap, or the whole fence of --backend landlock.
// Inside bwrap it is refused when the user's seccomp profile would keep the
// stage 2 from applying it.
func landlockPlan(p *policy.Policy, rc runConfig) (landlock.Ruleset, error) {
	if rc.backend == "landlock" {
		rs, err := landlock.AloneRules(aloneConfig(p), rc.landlockABI, lstatKind, readDirNames)
		if err == nil {
			err = aloneSelf(p)
		}
		if err != nil {
			rs.Status = landlock.StatusRefused
			rs.Gaps = append(rs.Gaps, landlock.Protection{What: err.Error(), Required: true})
		}
		return rs, nil
	}
	rs := landlock.Rules(landlockConfig(p, rc), rc.landlockABI)
	if rs.Status != landlock.StatusEnforced || rc.seccompProfile == "" {
		return rs, nil
	}
	prof, err := userProfile(rc)
	if err != nil {
		return rs, err
	}
	for _, name := range landlock.Syscalls {
		if !seccomp.Allows(prof, name) {
			return rs.Refuse(fmt.Sprintf("--seccomp-profile %q refuses %s, which the Landlock stage needs", rc.seccompProfile, name)), nil
		}
	}
	return rs, nil
}

// socketRules are the sockets the seccomp filter refuses for p when
// Landlock applies rs: under --network deny every family but AF_UNIX, and
// AF_UNIX itself unless --allow-unix-sockets or Landlock keeps the host's
// unix sockets out while the command's own work.
func socketRules(p *policy.Policy, rs landlock.Ruleset) seccomp.Sockets {
	return seccomp.Sockets{Network: p.Network == policy.NetworkDeny, Unix: !p.UnixSockets && !rs.FencesUnixSockets()}
}

// sandboxCommand is the command bwrap runs: the user's, or, when the plan
// enforces Landlock, zsandbox itself (by descriptor, so a hidden or deleted
// binary path does not matter) as the stage 2 that restricts itself and
// execs it.
func sandboxCommand(p *policy.Policy, rc runConfig, rs landlock.Ruleset, argv []string) []string {
	if rs.Status != landlock.StatusEnforced {
		return argv
	}
	return landlockConfig(p, rc).Command(fmt.Sprintf("/proc/self/fd/%d", bwrap.ExeFD), argv)
}

// userProfile reads and checks the user's --seccomp-profile.
func userProfile(rc runConfig) (*specs.LinuxSeccomp, error) {
	data, err := os.ReadFile(rc.seccompProfile)
	if err != nil {
		return nil, exit.Usagef("--seccomp-profile %q: %v", rc.seccompProfile, err)
	}
	prof, err := seccomp.Parse(data, rc.seccompProfile)
	if err != nil {
		return nil, exit.Usagef("%v", err)
	}
	return prof, nil
}

// seccompProfile is the filter: the built-in or the user's base list, plus
// the socket rules s.
func seccompProfile(rc runConfig, s seccomp.Sockets) (*specs.LinuxSeccomp, error) {
	prof := seccomp.Default()
	if rc.seccompProfile != "" {
		var err error
		if prof, err = userProfile(rc); err != nil {
			return nil, err
		}
	}
	return seccomp.WithSockets(prof, s), nil
}

// compileSeccomp compiles the filter with the socket rules s; a bad user
// profile is a usage error, anything else means the sandbox cannot be built.
func compileSeccomp(rc runConfig, s seccomp.Sockets) ([]byte, error) {
	if rc.seccompProfile == "" {
		if bpf, ok := seccomp.Builtin(s); ok {
			return bpf, nil
		}
	}
	prof, err := seccompProfile(rc, s)
	if err != nil {
		return nil, err
	}
	bpf, err := seccomp.Compile(prof)
	var pe *seccomp.ProfileError
	if errors.As(err, &pe) {
		return nil, exit.Usagef("%v", pe)
	}
	if err != nil {
		return nil, exit.Sandbox("seccomp filter: " + err.Error() + "; the command did not run")
	}
	return bpf, nil
}
