package plan

import (
	"fmt"

	"github.com/zsandbox/zsandbox/alone"
	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/denymsg"
	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/netns"
	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seatbelt"
	"github.com/zsandbox/zsandbox/seccomp"
)

// Render plans running argv under p with the options o. Each part is
// planned once, from the parts before it: the Landlock ruleset decides the
// seccomp socket rules (Landlock may fence unix sockets itself) and the
// command bubblewrap runs (the stage 2 in front of argv when enforced).
func Render(p *policy.Policy, argv []string, o Options) Plan {
	pl := Plan{Backend: o.Backend, Policy: p, Argv: argv, Writable: p.WritablePaths(), NetworkDeny: p.Network == policy.NetworkDeny}
	pl.Stage2 = landlock.Config{Mode: o.Landlock, Writable: pl.Writable, NetworkDeny: pl.NetworkDeny, UnixSockets: p.UnixSockets, ABI: o.LandlockABI}
	if p.Network == policy.NetworkAllowlist {
		// Behind the namespace, Landlock lets TCP connect reach the
		// proxy's port alone (where the ABI has network rules).
		pl.Stage2.ProxyPort = netns.Port
	}
	pl.Alone = aloneConfig(p, pl.Writable, pl.NetworkDeny)
	if o.Backend == Landlock {
		pl.Landlock, pl.Refused = aloneRules(pl, o)
	} else {
		pl.Landlock, pl.Refused = stage2Rules(pl, o)
	}
	pl.Allowlist = allowlist(p, o.Backend)
	if pl.Allowlist != nil && o.Backend == Landlock && pl.Refused == nil {
		pl.Refused = allowlistAloneRefusal
	}
	pl.Seccomp = Seccomp{Profile: "built-in", User: o.UserSeccomp,
		Sockets: seccomp.Sockets{Network: pl.NetworkDeny, Inet: pl.Allowlist != nil, Unix: !p.UnixSockets && !pl.Landlock.FencesUnixSockets()}}
	if o.SeccompProfile != "" {
		pl.Seccomp.Profile = o.SeccompProfile
	}
	pl.Unix = unixFence(pl)
	pl.Bwrap = bwrap.Args(p, pl.sandboxCommand(), bwrap.Options{Seccomp: true})
	protected := p.ProtectedPaths()
	if o.Backend == Seatbelt || o.Explain {
		pl.Seatbelt, pl.SeatbeltErr = seatbelt.Render(p, protected)
	}
	pl.Hint = hintFacts(pl, protected)
	pl.Gaps = gaps(pl)
	if p.UnixSockets && o.Warn {
		pl.Warnings = append(pl.Warnings, UnixSocketsWarning+" (--no-warning silences this)")
	}
	if o.Backend == Landlock && o.Warn {
		pl.AloneWarning = alone.Warning() + " (--no-warning silences this)"
	}
	return pl
}

// allowlistAloneRefusal: the Landlock-only backend shares the host's
// network namespace and cannot make one, so under it the allowlist would
// be an unfiltered network.
var allowlistAloneRefusal = exit.NotRun("--allow-domain needs a network namespace of its own, which --backend landlock cannot make (it would share the host's network)",
	"use the bwrap backend (--backend bwrap or auto, with bubblewrap installed), or --network deny with this backend")

// aloneConfig is what the Landlock-only backend enforces for p.
func aloneConfig(p *policy.Policy, writable []string, networkDeny bool) alone.Config {
	c := alone.Config{Writable: writable, NetworkDeny: networkDeny, UnixSockets: p.UnixSockets}
	for _, h := range p.Hidden {
		if h.Exists {
			c.Hidden = append(c.Hidden, h.Path)
		} else {
			c.HiddenMissing = append(c.HiddenMissing, h.Path)
		}
	}
	return c
}

// aloneRules plans the whole fence of --backend landlock. A policy it
// cannot enforce shows in the ruleset as refused (for explain) and is the
// plan's refusal (for exec).
func aloneRules(pl Plan, o Options) (landlock.Ruleset, error) {
	rs, err := alone.Rules(pl.Alone, o.LandlockABI, o.FS.Kind, o.FS.List)
	if err == nil {
		err = aloneSelf(pl.Policy, o.Exe)
	}
	if err == nil {
		return rs, nil
	}
	rs.Status = landlock.StatusRefused
	rs.Gaps = append(rs.Gaps, landlock.Protection{What: err.Error(), Required: true})
	if _, unsafe := err.(*policy.UnsafeError); unsafe {
		return rs, err // printed with its own hint
	}
	return rs, exit.NotRunErr(err)
}

// aloneSelf refuses --backend landlock when zsandbox's own binary lies in
// a writable root: without mounts it cannot be kept read-only, and a
// command could replace what the next call runs outside any sandbox.
func aloneSelf(p *policy.Policy, exe string) error {
	if root, ok := p.RootFinder()(exe); ok {
		return &policy.UnsafeError{
			Msg:  fmt.Sprintf("--backend landlock: zsandbox's own binary %q lies inside the writable root %q, and without mounts it cannot be kept read-only: the command could replace what your next call runs", exe, root),
			Hint: "install zsandbox outside the writable roots (for example in /usr/local/bin), or run from another directory",
		}
	}
	return nil
}

// stage2Rules plans the stage 2's fence inside bubblewrap, for the ABI
// probed here: the stage 2 applies exactly that or refuses to run
// (landlock.PlannedError). It is refused when the user's seccomp profile
// would keep the stage 2 from applying it.
func stage2Rules(pl Plan, o Options) (landlock.Ruleset, error) {
	rs := landlock.Rules(pl.Stage2, o.LandlockABI)
	if rs.Status == landlock.StatusEnforced && o.UserSeccomp != nil {
		for _, name := range landlock.Syscalls {
			if !seccomp.Allows(o.UserSeccomp, name) {
				rs = rs.Refuse(fmt.Sprintf("--seccomp-profile %q refuses %s, which the Landlock stage needs", o.SeccompProfile, name))
				break
			}
		}
	}
	if rs.Status != landlock.StatusRefused {
		return rs, nil
	}
	return rs, refusal(pl.Stage2, rs)
}

// refusal is why a refused stage-2 ruleset refuses the run: --landlock
// require on a kernel that cannot meet it, or a seccomp profile that would
// keep the stage 2 from applying it.
func refusal(c landlock.Config, rs landlock.Ruleset) error {
	if rs.Reason != "" {
		return exit.NotRun(rs.Reason, landlock.SeccompHint)
	}
	if err := landlock.Check(c, rs.ABI); err != nil {
		return exit.NotRunErr(err)
	}
	return exit.NotRun("landlock: refused")
}

// sandboxCommand is the command bwrap runs: the user's, or, when the plan
// enforces Landlock, zsandbox itself (by descriptor, so a hidden or deleted
// binary path does not matter) as the stage 2 that restricts itself and
// execs it.
func (pl Plan) sandboxCommand() []string {
	if !pl.Fenced() {
		return pl.Argv
	}
	return pl.Stage2.Command(fmt.Sprintf("/proc/self/fd/%d", bwrap.ExeFD), pl.Argv)
}

func unixFence(pl Plan) Unix {
	switch {
	case pl.Policy.UnixSockets:
		return Unix{Allowed: true}
	case pl.Backend == Seatbelt:
		return Unix{Fence: "sandbox"}
	case pl.Landlock.FencesUnixSockets():
		return Unix{Fence: "landlock"}
	}
	return Unix{Fence: "seccomp"}
}

// hintFacts are what the denial hint knows. A hidden path that does not
// exist is not why a read failed with "No such file or directory".
func hintFacts(pl Plan, protected []string) denymsg.Facts {
	f := denymsg.Facts{Writable: pl.Writable, Protected: protected, Purpose: map[string]string{},
		NetworkDeny: pl.NetworkDeny, UnixDeny: !pl.Policy.UnixSockets, Cwd: pl.Policy.Cwd}
	for _, h := range pl.Policy.Hidden {
		if h.Exists {
			f.Hidden = append(f.Hidden, h.Path)
		}
	}
	for _, pr := range pl.Policy.Protected {
		f.Purpose[pr.Path] = pr.Why
	}
	return f
}

// fifoGap is what a sandbox without Landlock cannot stop: a FIFO is
// opened for writing through a read-only mount, so one outside the
// writable roots (a named pipe some host program reads) is a channel out.
const fifoGap = "writes into FIFOs (named pipes) outside the writable roots: a read-only mount does not stop them, only Landlock does " +
	"(use --landlock auto on a kernel with Landlock, or --landlock require)"

// gaps are what the backend cannot enforce with the plan's ruleset.
func gaps(pl Plan) []string {
	switch st := pl.Landlock.Status; {
	case pl.Backend == Landlock:
		return alone.Gaps()
	case pl.Backend == Bwrap && st != landlock.StatusEnforced && st != landlock.StatusRefused:
		return []string{fifoGap}
	}
	return []string{}
}

// UnixSocketsWarning is the warning of --allow-unix-sockets (and its
// explain line): what the command can reach with it.
const UnixSocketsWarning = "--allow-unix-sockets: the command can connect to the host's unix sockets, so its daemons become reachable: " +
	"/run/docker.sock (root on the host), D-Bus (systemd-run --user runs anything outside), tmux (send-keys types into your shell), " +
	"X11 (keystrokes into the desktop) and ssh-agent (signs with your keys)"
