package sandbox

import (
	"errors"
	"fmt"
	"os"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/plan"
)

// aloneHint is what a user without user namespaces can do instead.
const aloneHint = "where user namespaces cannot be had, --backend landlock runs without them: weaker (no PID isolation, no protected paths); zsandbox explain --backend landlock lists what it gives up"

// executeAlone applies pl with the Landlock-only backend: zsandbox
// confines itself (no_new_privs, no capabilities, Landlock, seccomp) and
// execs the command in place. It returns only when nothing ran.
func executeAlone(pl plan.Plan, _ bool) error {
	if os.Geteuid() == 0 {
		return exit.NotRun("--backend landlock refuses to run as root: Landlock does not fence chmod or reads of root-owned files, so root would keep owner rights over the whole system",
			"run zsandbox as an unprivileged user (for example: setpriv --reuid=USER --regid=USER --init-groups zsandbox exec ...), or use the bwrap backend")
	}
	if pl.Refused != nil {
		return pl.Refused
	}
	if _, err := planStdio(nil, true); err != nil {
		return err
	}
	bpf, err := compileSeccomp(pl.Seccomp)
	if err != nil {
		return err
	}
	if pl.AloneWarning != "" {
		fmt.Fprintf(os.Stderr, "zsandbox: warning: %s\n", pl.AloneWarning)
	}
	return aloneFailure(landlock.ExecAlone(pl.Alone, bpf, pl.Argv, pl.Policy.Env, pl.Policy.Cwd))
}

// aloneFailure maps ExecAlone's errors (it returns only on failure).
func aloneFailure(err error) error {
	var ce *landlock.CommandError
	var abi *landlock.AloneABIError
	switch {
	case errors.As(err, &ce):
		return &exit.Error{Code: ce.Code, Msg: ce.Msg}
	case errors.As(err, &abi):
		return exit.NotRunErr(abi)
	}
	return exit.NotRun(fmt.Sprintf("--backend landlock: %v", err))
}
