package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/plan"
	"github.com/zsandbox/zsandbox/seatbelt"
)

// start listens for the proxy on an ephemeral port of the host's loopback
// (Seatbelt has no network namespace: the profile lets the command reach
// that one port and nothing else) and returns the profile and environment
// naming it. Without an allowlist it returns them unchanged.
func (a *allowlistRun) start(prof seatbelt.Profile, env []string) (seatbelt.Profile, []string, error) {
	if a == nil {
		return prof, env, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return prof, nil, exit.NotRun("the allowlist's proxy cannot listen on 127.0.0.1: " + err.Error())
	}
	port := l.Addr().(*net.TCPAddr).Port
	if prof, err = prof.WithProxyPort(port); err != nil {
		l.Close()
		return prof, nil, exit.NotRun(err.Error())
	}
	a.serve(l)
	return prof, a.env(env, net.JoinHostPort("127.0.0.1", strconv.Itoa(port))), nil
}

// execute applies pl with sandbox-exec. Every failure before the command
// starts is a sandbox error (127): nothing runs unsandboxed.
func Exec(pl plan.Plan, hints bool) error {
	if pl.SeatbeltErr != nil {
		return exit.NotRun(pl.SeatbeltErr.Error())
	}
	allow := newAllowlistRun(pl.Allowlist)
	prof, env, err := allow.start(pl.Seatbelt, pl.Policy.Env)
	if err != nil {
		return err
	}
	out := newOutputs(pl.Hint, hints)
	p := pl.Policy
	code, err := seatbelt.ExecStdio(prof, pl.Argv, env, p.Cwd,
		seatbelt.Stdio{In: os.Stdin, Out: out.stdout, Err: out.stderr})
	allow.done(hints && err == nil)
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
