package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seatbelt"
)

// execute runs argv under p with sandbox-exec. Every failure before the
// command starts is a sandboxError (127): nothing runs unsandboxed.
func execute(p *policy.Policy, argv []string, rc runConfig) error {
	prof, err := seatbelt.Render(p, p.ProtectedPaths())
	if err != nil {
		return exit.Sandbox(err.Error() + "; the command did not run")
	}
	out := newOutputs(p, rc.hints)
	code, err := seatbelt.ExecStdio(prof, argv, p.Env, p.Cwd,
		seatbelt.Stdio{In: os.Stdin, Out: out.stdout, Err: out.stderr})
	var setup *seatbelt.SetupError
	switch {
	case errors.As(err, &setup):
		return exit.Sandbox(setup.Error()+"; the command did not run", setup.Hint)
	case errors.Is(err, exec.ErrNotFound):
		return exit.Sandbox(fmt.Sprintf("%s: command not found", argv[0]))
	case err != nil:
		return exit.Sandbox(err.Error())
	}
	out.hint(code)
	return exit.Status(code)
}
