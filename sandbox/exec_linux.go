package sandbox

import (
	"errors"
	"fmt"
	"os"

	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/netns"
	"github.com/zsandbox/zsandbox/plan"
	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seccomp"
)

// execute applies pl with bubblewrap, seccomp and (unless off) the
// Landlock stage 2. Every failure before the command starts is a
// sandbox error (127) or a usage error (2): nothing runs unsandboxed.
func Exec(pl plan.Plan, hints bool) error {
	switch pl.Backend {
	case plan.Landlock:
		return executeAlone(pl, hints)
	case plan.Seatbelt:
		return exit.NotRun("--backend seatbelt: sandbox-exec exists only on macOS")
	}
	p := pl.Policy
	if err := checkEnterable(p.Cwd); err != nil {
		return err
	}
	if pl.Refused != nil {
		return pl.Refused
	}
	std, err := planStdio(func(s stdStream) bool { return pl.Fenced() && fencedReopen(s, p) }, false)
	if err != nil {
		return err
	}
	bin, err := bwrap.Find(os.Getenv("PATH"), p.SystemBinary)
	if err != nil {
		return exit.Sandbox(err.Error(),
			"install it: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch)", aloneHint)
	}
	if !pl.Fenced() {
		// The stage 2 reports a missing command itself; without it, look
		// the command up here so it gets 127 and a message, not bwrap's 1.
		if _, err := bwrap.LookPath(pl.Argv[0], envValue(p.Env, "PATH"), p.Cwd); err != nil {
			return exit.Sandbox(fmt.Sprintf("%s: command not found", pl.Argv[0]))
		}
	}
	filter, err := seccompFD(pl.Seccomp)
	if err != nil {
		return err
	}
	defer filter.Close()
	exe, err := openSelf(pl.Fenced())
	if err != nil {
		return err
	}
	defer exe.Close()
	// Before any placeholder is made: a policy bwrap cannot take must
	// leave nothing behind (with thousands of roots, each holding project
	// config, the guard could not even start to remove them).
	if msg := pl.Bwrap.TooLarge(); msg != "" {
		return exit.Usagef("%s: use fewer --writable/--hide paths (for example a common parent)", msg)
	}
	// Before any process starts (the placeholder guard included), so no
	// descriptor zsandbox inherited reaches one.
	if err := bwrap.CloseInherited(); err != nil {
		return exit.NotRun(err.Error())
	}
	ph, err := bwrap.MakePlaceholders(p.Protected)
	var intr *bwrap.InterruptedError
	if errors.As(err, &intr) {
		return exit.Interrupted(int(intr.Signal), err.Error())
	}
	if err != nil {
		return exit.NotRun(err.Error())
	}
	defer ph.Done()
	return runBwrap(bin, pl, hints, filter, exe, ph, std)
}

// runBwrap runs the plan's command (the user's, or the stage 2 in front of it).
func runBwrap(bin string, pl plan.Plan, hints bool, filter, exe *os.File, ph *bwrap.Placeholders, std stdio) error {
	allow := newAllowlistRun(pl.Allowlist)
	out := newOutputs(pl.Hint, hints)
	out.copyOutputs(std)
	stdin, err := copyIn(os.Stdin, std[0])
	if err != nil {
		return err
	}
	if stdin != os.Stdin {
		defer stdin.Close() // the copier then stops with EPIPE
	}
	code, err := bwrap.Exec(bwrap.Run{
		Bwrap: bin, Plan: pl.Bwrap, Env: bwrap.HostEnv(allow.env(pl.Policy.Env, netns.Addr)), Seccomp: filter, Exe: exe,
		Stdin: stdin, Stdout: out.stdout, Stderr: out.stderr,
		Started: ph.Started, Wrap: allow.wrap(),
	})
	allow.done(hints && err == nil)
	var setup *bwrap.SetupError
	if errors.As(err, &setup) {
		return setupFailure(setup)
	}
	if err != nil {
		return exit.Sandbox(err.Error())
	}
	out.hint(code)
	return exit.Status(code)
}

// seccompFD compiles the filter into a sealed memfd for bwrap --seccomp.
func seccompFD(sc plan.Seccomp) (*os.File, error) {
	bpf, err := compileSeccomp(sc)
	if err != nil {
		return nil, err
	}
	f, err := seccomp.SealedFD(bpf)
	if err != nil {
		return nil, exit.NotRun("seccomp filter: " + err.Error())
	}
	return f, nil
}

// openSelf opens zsandbox's own binary for the stage 2, which bwrap runs
// as /proc/self/fd/ExeFD: no path inside the sandbox is needed.
func openSelf(fenced bool) (*os.File, error) {
	if !fenced {
		return nil, nil
	}
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return nil, exit.Sandbox("opening zsandbox for the Landlock stage: " + err.Error())
	}
	return f, nil
}

// setupFailure explains why bwrap could not build the sandbox.
func setupFailure(err *bwrap.SetupError) error {
	var hints []string
	for _, c := range bwrap.Diagnose(nil) {
		hints = append(hints, fmt.Sprintf("likely cause: %s; fix: %s", c.Why, c.Fix))
	}
	if len(hints) == 0 {
		hints = append(hints, "see bwrap's message above; zsandbox doctor checks this host")
	}
	return exit.NotRun(err.Error(), append(hints, aloneHint)...)
}

func envValue(env []string, name string) string {
	return policy.Host{Env: env}.Getenv(name)
}
