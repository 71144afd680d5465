package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/outbuf"
)

// command builds the host command for cmd: zsandbox exec … -- argv with
// isolation on, argv itself with isolation off. With isolation on and no
// trustworthy zsandbox it returns ErrUnavailable: nothing runs.
func (h *Handle) command(cmd contexts.Cmd) (*exec.Cmd, []string, error) {
	if err := h.checkAlive(); err != nil {
		return nil, nil, err
	}
	argv, err := shellArgs(cmd)
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
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	select {
	case err := <-done:
		return exitCode(err), false
	case <-expire:
		timedOut = true
	case <-ctx.Done():
	}
	killGroup(c)
	err := <-done
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

// proc is a background process of a handle.
type proc struct {
	id     string
	args   []string
	cmd    *exec.Cmd
	stdout *outbuf.Buffer
	stderr *outbuf.Buffer
	done   chan struct{}

	sandboxed bool

	mu       sync.Mutex
	exitCode int
	running  bool
}

// Start runs cmd in the background.
func (h *Handle) Start(_ context.Context, cmd contexts.Cmd) (contexts.Process, error) {
	c, argv, err := h.command(cmd)
	if err != nil {
		return nil, err
	}
	p := &proc{args: argv, cmd: c, stdout: outbuf.New(), stderr: outbuf.New(), done: make(chan struct{}), running: true,
		sandboxed: h.ctx.isolated}
	c.Stdin, c.Stdout, c.Stderr = cmd.Stdin, p.stdout, p.stderr
	if err := c.Start(); err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "start %q: %v", c.Path, err)
	}
	h.mu.Lock()
	h.nextProc++
	p.id = strconv.Itoa(h.nextProc)
	h.procs[p.id] = p
	h.mu.Unlock()
	go p.wait(cmd.Timeout)
	return p, nil
}

func (p *proc) wait(timeout time.Duration) {
	code, _ := waitTree(context.Background(), p.cmd, timeout)
	p.stdout.Close()
	p.stderr.Close()
	p.mu.Lock()
	p.exitCode, p.running = code, false
	p.mu.Unlock()
	close(p.done)
}

func (p *proc) ID() string        { return p.id }
func (p *proc) Stdout() io.Reader { return p.stdout.Reader() }
func (p *proc) Stderr() io.Reader { return p.stderr.Reader() }
// kill takes the tree down unless it has ended (its pid may be reused).
func (p *proc) kill() {
	select {
	case <-p.done:
	default:
		killGroup(p.cmd)
	}
}

// Signal sends sig to the process. SIGKILL takes the whole tree down; the
// signals zsandbox forwards (INT, TERM, HUP, QUIT) reach the command's
// process group; others go to the group only without isolation.
func (p *proc) Signal(_ context.Context, sig syscall.Signal) error {
	select {
	case <-p.done:
		return contexts.Errorf(contexts.ErrNotFound, "process %s has ended", p.id)
	default:
	}
	switch sig {
	case syscall.SIGKILL:
		p.kill()
		return nil
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT:
		return p.cmd.Process.Signal(sig)
	}
	if p.sandboxed {
		return contexts.Errorf(contexts.ErrUnsupported, "signal %v: zsandbox forwards only INT, TERM, HUP, QUIT and KILL", sig)
	}
	return syscall.Kill(-p.cmd.Process.Pid, sig)
}

// Wait blocks until the process ends.
func (p *proc) Wait(ctx context.Context) (contexts.Result, error) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return contexts.Result{}, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return contexts.Result{Stdout: p.stdout.Bytes(), Stderr: p.stderr.Bytes(), ExitCode: p.exitCode,
		TimedOut: p.exitCode == contexts.ExitTimeout}, nil
}

func (p *proc) info() contexts.ProcessInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return contexts.ProcessInfo{ID: p.id, Args: p.args, Running: p.running, ExitCode: p.exitCode}
}

// Processes lists the handle's background processes, in start order.
func (h *Handle) Processes(context.Context) ([]contexts.ProcessInfo, error) {
	if err := h.checkAlive(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]contexts.ProcessInfo, 0, len(h.procs))
	for i := 1; i <= h.nextProc; i++ {
		if p, ok := h.procs[strconv.Itoa(i)]; ok {
			out = append(out, p.info())
		}
	}
	return out, nil
}

// AttachProcess returns the background process id of this handle. Host
// processes belong to the program that started them, so another program's
// handle cannot re-attach (Capabilities.Reattach is false).
func (h *Handle) AttachProcess(_ context.Context, id string) (contexts.Process, error) {
	if err := h.checkAlive(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.procs[id]
	if !ok {
		return nil, contexts.Errorf(contexts.ErrNotFound, "no background process %q on handle %s", id, h.st.ID)
	}
	return p, nil
}
