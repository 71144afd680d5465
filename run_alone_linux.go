package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/policy"
)

// aloneHint is what a user without user namespaces can do instead.
const aloneHint = "where user namespaces cannot be had, --backend landlock runs without them: weaker (no PID isolation, no protected paths); zsandbox explain --backend landlock lists what it gives up"

// executeAlone runs argv under the Landlock-only backend: zsandbox confines
// itself (no_new_privs, no capabilities, Landlock, seccomp) and execs the
// command in place. It returns only when nothing ran.
func executeAlone(p *policy.Policy, argv []string, rc runConfig) error {
	if os.Geteuid() == 0 {
		return exit.Sandbox("--backend landlock refuses to run as root: Landlock does not fence chmod or reads of root-owned files, so root would keep owner rights over the whole system; the command did not run",
			"run zsandbox as an unprivileged user (for example: setpriv --reuid=USER --regid=USER --init-groups zsandbox exec ...), or use the bwrap backend")
	}
	if err := aloneSelf(p); err != nil {
		return err
	}
	if _, err := planStdio(nil, true); err != nil {
		return err
	}
	cfg := aloneConfig(p)
	var ae *landlock.AloneError
	if err := landlock.CheckAlone(cfg); errors.As(err, &ae) {
		return exit.Sandbox(ae.Error()+"; the command did not run", ae.Hint())
	} else if err != nil {
		return exit.Sandbox(err.Error() + "; the command did not run")
	}
	rs, err := landlockPlan(p, rc)
	if err != nil {
		return err
	}
	bpf, err := compileSeccomp(rc, socketRules(p, rs))
	if err != nil {
		return err
	}
	if rc.warn {
		fmt.Fprintf(os.Stderr, "zsandbox: warning: %s (--no-warning silences this)\n", landlock.AloneWarning())
	}
	return aloneFailure(landlock.ExecAlone(cfg, bpf, argv, p.Env, p.Cwd))
}

// aloneFailure maps ExecAlone's errors (it returns only on failure).
func aloneFailure(err error) error {
	var ce *landlock.CommandError
	var abi *landlock.AloneABIError
	switch {
	case errors.As(err, &ce):
		return &exit.Error{Code: ce.Code, Msg: ce.Msg}
	case errors.As(err, &abi):
		return exit.Sandbox(abi.Error()+"; the command did not run", abi.Hint())
	}
	return exit.Sandbox(fmt.Sprintf("--backend landlock: %v; the command did not run", err))
}
