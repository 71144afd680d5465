package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/policy"
)

// execute runs argv under p with bubblewrap. Every failure before the
// command starts is a sandboxError (127): nothing runs unsandboxed.
func execute(p *policy.Policy, argv []string, rc runConfig) error {
	bin, err := bwrap.Find(os.Getenv("PATH"), p.WritablePaths())
	if err != nil {
		return sandboxError(err.Error(),
			"install it: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch)")
	}
	pathEnv := envValue(p.Env, "PATH")
	if _, err := bwrap.LookPath(argv[0], pathEnv, p.Cwd); err != nil {
		return sandboxError(fmt.Sprintf("%s: command not found", argv[0]))
	}
	ph, err := bwrap.MakePlaceholders(p.Protected)
	if err != nil {
		return sandboxError(err.Error() + "; the command did not run")
	}
	defer ph.Done()
	plan := bwrap.Args(p, argv, execOptions(p))
	out := newOutputs(p, rc.hints)
	code, err := bwrap.Exec(bwrap.Run{
		Bwrap: bin, Plan: plan, Env: p.Env,
		Stdin: os.Stdin, Stdout: out.stdout, Stderr: out.stderr,
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

// setupFailure explains why bwrap could not build the sandbox.
func setupFailure(err *bwrap.SetupError) error {
	var hints []string
	for _, c := range bwrap.Diagnose(nil) {
		hints = append(hints, fmt.Sprintf("likely cause: %s; fix: %s", c.Why, c.Fix))
	}
	if len(hints) == 0 {
		hints = append(hints, "see bwrap's message above; zsandbox doctor checks this host")
	}
	return sandboxError(err.Error()+"; the command did not run", hints...)
}
