package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"

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
	ls, err := listenLoopback()
	if err != nil {
		return prof, nil, exit.NotRun("the allowlist's proxy cannot listen on loopback: " + err.Error())
	}
	port := ls[0].Addr().(*net.TCPAddr).Port
	if prof, err = prof.WithProxyPort(port); err != nil {
		for _, l := range ls {
			l.Close()
		}
		return prof, nil, exit.NotRun(err.Error())
	}
	for _, l := range ls {
		a.serve(l)
	}
	return prof, a.env(env, net.JoinHostPort("127.0.0.1", strconv.Itoa(port))), nil
}

// listenLoopback listens on one TCP port of both 127.0.0.1 and ::1: the
// profile's "localhost:PORT" names both addresses, so a host service that
// held the port on the other one would be reachable from inside. Without
// ::1 (IPv6 off) nothing can listen there, and 127.0.0.1 is enough.
func listenLoopback() ([]net.Listener, error) {
	var err error
	for range 16 {
		var l4, l6 net.Listener
		if l4, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
			return nil, err
		}
		port := strconv.Itoa(l4.Addr().(*net.TCPAddr).Port)
		l6, err = net.Listen("tcp6", net.JoinHostPort("::1", port))
		switch {
		case err == nil:
			return []net.Listener{l4, l6}, nil
		case errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EAFNOSUPPORT):
			return []net.Listener{l4}, nil
		}
		l4.Close() // [::1]:port is taken: another port
	}
	return nil, err
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
