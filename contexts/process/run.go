package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/procs"
)

// command builds the host command for cmd: zsandbox exec … -- argv with
// isolation on, argv itself with isolation off. With isolation on and no
// trustworthy zsandbox it returns ErrUnavailable: nothing runs.
func (h *Handle) command(cmd contexts.Cmd) (*exec.Cmd, []string, error) {
	if err := h.Alive(); err != nil {
		return nil, nil, err
	}
	argv, err := cmd.Argv()
	if err != nil {
		return nil, nil, err
	}
	sp := h.spec(cmd.Cwd, cmd.Env, cmd.PassEnv)
	p, err := h.resolve(sp)
	if err != nil {
		return nil, nil, err
	}
	var c *exec.Cmd
	if h.ctx.isolated {
		bin, err := findZsandbox(h.ctx.opts.Zsandbox, p.WritablePaths(), os.Getenv("PATH"))
		if err != nil {
			return nil, nil, err
		}
		full := zsandboxArgs(bin, sp, argv)
		c = exec.Command(full[0], full[1:]...)
		c.Env = zsandboxEnv(os.Environ())
	} else {
		c = exec.Command(argv[0], argv[1:]...)
		c.Env = p.Env
		c.Dir = p.Cwd
	}
	// Its own process group, so that a timeout or Destroy kills the
	// whole tree (zsandbox also takes the sandbox down when it dies).
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.WaitDelay = 2 * time.Second
	return c, argv, nil
}

// unavailable is the Result of a command that could not run.
func unavailable(err error) contexts.Result {
	msg := "zctx: error: " + err.Error() + "\n"
	if hint := contexts.Hint(err); hint != "" {
		msg += "zctx: hint: " + hint + "\n"
	}
	return contexts.Result{ExitCode: contexts.ExitCannotRun, Stderr: []byte(msg)}
}

// Exec runs cmd to the end.
func (h *Handle) Exec(ctx context.Context, cmd contexts.Cmd) (contexts.Result, error) {
	c, _, err := h.command(cmd)
	if err != nil {
		return unavailable(err), err
	}
	var stdout, stderr bytes.Buffer
	c.Stdin = cmd.Stdin
	c.Stdout = tee(&stdout, cmd.Stdout)
	c.Stderr = tee(&stderr, cmd.Stderr)
	if err := c.Start(); err != nil {
		return startFailed(c, err)
	}
	code, timedOut := waitTree(ctx, c, cmd.Timeout)
	return contexts.Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: code, TimedOut: timedOut}, ctx.Err()
}

// startFailed reports a command that did not start like a shell would:
// 127 for a missing command, 126 for one that cannot be executed.
func startFailed(c *exec.Cmd, err error) (contexts.Result, error) {
	code := 126
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		code = contexts.ExitCannotRun
	}
	return contexts.Result{ExitCode: code, Stderr: []byte(fmt.Sprintf("%s: %v\n", c.Args[0], err))}, nil
}

func tee(buf *bytes.Buffer, w io.Writer) io.Writer {
	if w == nil {
		return buf
	}
	return io.MultiWriter(buf, w)
}

// waitTree waits for c; past timeout (or when ctx ends) it kills c's
// process group and reports ExitTimeout.
func waitTree(ctx context.Context, c *exec.Cmd, timeout time.Duration) (code int, timedOut bool) {
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	err, timedOut := procs.Wait(ctx, done, timeout, func() { killGroup(c) })
	if timedOut {
		return contexts.ExitTimeout, true
	}
	return exitCode(err), false
}

func killGroup(c *exec.Cmd) {
	if c.Process != nil {
		_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}

// exitCode maps Wait's error to the shell's exit code.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return contexts.SignalExit(ws.Signal())
		}
		return ee.ExitCode()
	}
	return contexts.ExitCannotRun
}

// Start runs cmd in the background.
func (h *Handle) Start(_ context.Context, cmd contexts.Cmd) (contexts.Process, error) {
	c, argv, err := h.command(cmd)
	if err != nil {
		return nil, err
	}
	p := procs.New(argv, func(_ context.Context, sig syscall.Signal) error { return signal(c, sig, h.ctx.isolated) })
	c.Stdin, c.Stdout, c.Stderr = cmd.Stdin, p.Out, p.Err
	if err := c.Start(); err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "start %q: %v", c.Path, err)
	}
	h.Procs.Add(p)
	h.mu.Lock()
	h.cmds = append(h.cmds, running{c, p})
	h.mu.Unlock()
	go func() {
		code, _ := waitTree(context.Background(), c, cmd.Timeout)
		p.Finish(code)
	}()
	return p, nil
}

// running pairs a background command with its Proc, for Destroy.
type running struct {
	cmd  *exec.Cmd
	proc *procs.Proc
}

// signal sends sig to c. SIGKILL takes the whole tree down; the signals
// zsandbox forwards (INT, TERM, HUP, QUIT) reach the command's process
// group through it; others reach the group only without isolation.
func signal(c *exec.Cmd, sig syscall.Signal, sandboxed bool) error {
	switch sig {
	case syscall.SIGKILL:
		killGroup(c)
		return nil
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT:
		return c.Process.Signal(sig)
	}
	if sandboxed {
		return contexts.Errorf(contexts.ErrUnsupported, "signal %v: zsandbox forwards only INT, TERM, HUP, QUIT and KILL", sig)
	}
	return syscall.Kill(-c.Process.Pid, sig)
}
