package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seccomp"
)

// execute runs argv under p with bubblewrap, seccomp and (unless off) the
// Landlock stage 2. Every failure before the command starts is a
// sandboxError (127) or a usage error (2): nothing runs unsandboxed.
func execute(p *policy.Policy, argv []string, rc runConfig) error {
	switch rc.backend {
	case "landlock":
		return executeAlone(p, argv, rc)
	case "seatbelt":
		return sandboxError("--backend seatbelt: sandbox-exec exists only on macOS; the command did not run")
	}
	if err := checkEnterable(p.Cwd); err != nil {
		return err
	}
	rs, err := landlockPlan(p, rc)
	if err != nil {
		return err
	}
	if err := checkLandlock(p, rc, rs); err != nil {
		return err
	}
	fenced := rs.Status == landlock.StatusEnforced
	std, err := planStdio(func(s stdStream) bool { return fenced && fencedReopen(s, p) }, false)
	if err != nil {
		return err
	}
	bin, err := bwrap.Find(os.Getenv("PATH"), p.SystemBinary)
	if err != nil {
		return sandboxError(err.Error(),
			"install it: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch)", aloneHint)
	}
	if rs.Status != landlock.StatusEnforced {
		// The stage 2 reports a missing command itself; without it, look
		// the command up here so it gets 127 and a message, not bwrap's 1.
		if _, err := bwrap.LookPath(argv[0], envValue(p.Env, "PATH"), p.Cwd); err != nil {
			return sandboxError(fmt.Sprintf("%s: command not found", argv[0]))
		}
	}
	filter, err := seccompFD(rc, socketRules(p, rs))
	if err != nil {
		return err
	}
	defer filter.Close()
	exe, err := openSelf(rs)
	if err != nil {
		return err
	}
	defer exe.Close()
	// Before any placeholder is made: a policy bwrap cannot take must
	// leave nothing behind (with thousands of roots, each holding project
	// config, the guard could not even start to remove them).
	plan := bwrap.Args(p, sandboxCommand(p, rc, rs, argv), execOptions())
	if n := len(plan.Args) + len(plan.Command) + 4; n > bwrap.MaxArgs {
		return usageErrorf("the policy needs %d bwrap arguments, more than bubblewrap accepts (%d): use fewer --writable/--hide paths (for example a common parent)", n, bwrap.MaxArgs)
	}
	// Before any process starts (the placeholder guard included), so no
	// descriptor zsandbox inherited reaches one.
	if err := bwrap.CloseInherited(); err != nil {
		return sandboxError(err.Error() + "; the command did not run")
	}
	ph, err := bwrap.MakePlaceholders(p.Protected)
	var intr *bwrap.InterruptedError
	if errors.As(err, &intr) {
		return &exitError{code: 128 + int(intr.Signal), msg: err.Error() + "; the command did not run"}
	}
	if err != nil {
		return sandboxError(err.Error() + "; the command did not run")
	}
	defer ph.Done()
	return runBwrap(bin, p, rc, plan, filter, exe, ph, std)
}

// runBwrap runs the plan (the user's command, or the stage 2 in front of it).
func runBwrap(bin string, p *policy.Policy, rc runConfig, plan bwrap.Plan, filter, exe *os.File, ph *bwrap.Placeholders, std stdio) error {
	out := newOutputs(p, rc.hints)
	out.copyOutputs(std)
	stdin, err := copyIn(os.Stdin, std[0])
	if err != nil {
		return err
	}
	if stdin != os.Stdin {
		defer stdin.Close() // the copier then stops with EPIPE
	}
	code, err := bwrap.Exec(bwrap.Run{
		Bwrap: bin, Plan: plan, Env: bwrap.HostEnv(p.Env), Seccomp: filter, Exe: exe,
		Stdin: stdin, Stdout: out.stdout, Stderr: out.stderr,
		Started: ph.Started,
	})
	var setup *bwrap.SetupError
	if errors.As(err, &setup) {
		return setupFailure(setup)
	}
	if err != nil {
		return sandboxError(err.Error())
	}
	out.hint(code)
	return commandStatus(code)
}

// checkLandlock refuses a plan whose fence cannot be applied, before
// anything starts: --landlock require on a kernel that cannot meet it, or a
// seccomp profile that would keep the stage 2 from applying it.
func checkLandlock(p *policy.Policy, rc runConfig, rs landlock.Ruleset) error {
	if rs.Status != landlock.StatusRefused {
		return nil
	}
	if rs.Reason != "" {
		return sandboxError(rs.Reason+"; the command did not run", landlock.SeccompHint)
	}
	var re *landlock.RequireError
	if err := landlock.Check(landlockConfig(p, rc), rs.ABI); errors.As(err, &re) {
		return sandboxError(re.Error()+"; the command did not run", re.Hint())
	}
	return sandboxError("landlock: refused; the command did not run")
}

// seccompFD compiles the filter into a sealed memfd for bwrap --seccomp.
func seccompFD(rc runConfig, s seccomp.Sockets) (*os.File, error) {
	bpf, err := compileSeccomp(rc, s)
	if err != nil {
		return nil, err
	}
	f, err := seccomp.SealedFD(bpf)
	if err != nil {
		return nil, sandboxError("seccomp filter: " + err.Error() + "; the command did not run")
	}
	return f, nil
}

// openSelf opens zsandbox's own binary for the stage 2, which bwrap runs
// as /proc/self/fd/ExeFD: no path inside the sandbox is needed.
func openSelf(rs landlock.Ruleset) (*os.File, error) {
	if rs.Status != landlock.StatusEnforced {
		return nil, nil
	}
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return nil, sandboxError("opening zsandbox for the Landlock stage: " + err.Error())
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
	return sandboxError(err.Error()+"; the command did not run", append(hints, aloneHint)...)
}
