package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/plan"
	"github.com/zsandbox/zsandbox/seatbelt"
)

// execute applies pl with sandbox-exec. Every failure before the command
// starts is a sandbox error (127): nothing runs unsandboxed.
func Exec(pl plan.Plan, hints bool) error {
	if pl.SeatbeltErr != nil {
		return exit.NotRun(pl.SeatbeltErr.Error())
	}
	out := newOutputs(pl.Hint, hints)
	p := pl.Policy
	code, err := seatbelt.ExecStdio(pl.Seatbelt, pl.Argv, p.Env, p.Cwd,
		seatbelt.Stdio{In: os.Stdin, Out: out.stdout, Err: out.stderr})
	var setup *seatbelt.SetupError
	switch {
	case errors.As(err, &setup):
		return exit.NotRun(setup.Error(), setup.Hint)
	case errors.Is(err, exec.ErrNotFound):
		return exit.Sandbox(fmt.Sprintf("%s: command not found", pl.Argv[0]))
	case err != nil:
		return exit.Sandbox(err.Error())
	}
	out.hint(code)
	return exit.Status(code)
}
