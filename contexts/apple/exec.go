package apple

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/procs"
	"github.com/zsandbox/zsandbox/contexts/internal/shell"
)

// cliCmd is the host process of one `container exec`.
func (h *Handle) cliCmd(argv []string) (*exec.Cmd, error) {
	bin, err := h.c.cli()
	if err != nil {
		return nil, err
	}
	c := exec.Command(bin, argv...)
	c.WaitDelay = 2 * time.Second
	return c, nil
}

// wait waits for the CLI; past timeout (or ctx's end) it kills the
// command's tree inside the VM first (killing the CLI would not).
func (h *Handle) wait(ctx context.Context, c *exec.Cmd, mark string, timeout time.Duration) (code int, timedOut bool) {
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	err, timedOut := procs.Wait(ctx, done, timeout, func() { h.kill(mark, syscall.SIGKILL) })
	if timedOut {
		return contexts.ExitTimeout, true
	}
	return exitCode(err), false
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return contexts.ExitCannotRun
}

// Exec runs cmd to the end (the CLI propagates the exit code).
func (h *Handle) Exec(ctx context.Context, cmd contexts.Cmd) (contexts.Result, error) {
	argv, _, mark, err := h.execArgv(cmd, false)
	if err != nil {
		return contexts.Result{ExitCode: contexts.ExitCannotRun, Stderr: []byte(err.Error() + "\n")}, err
	}
	c, err := h.cliCmd(argv)
	if err != nil {
		return contexts.Result{ExitCode: contexts.ExitCannotRun, Stderr: []byte(err.Error() + "\n")}, err
	}
	var stdout, stderr bytes.Buffer
	c.Stdin, c.Stdout, c.Stderr = cmd.Stdin, tee(&stdout, cmd.Stdout), tee(&stderr, cmd.Stderr)
	if err := c.Start(); err != nil {
		err = contexts.Errorf(contexts.ErrUnavailable, "container exec: %v", err)
		return contexts.Result{ExitCode: contexts.ExitCannotRun}, err
	}
	code, timedOut := h.wait(ctx, c, mark, cmd.Timeout)
	return contexts.Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: code, TimedOut: timedOut}, ctx.Err()
}

func tee(buf *bytes.Buffer, w io.Writer) io.Writer {
	if w == nil {
		return buf
	}
	return io.MultiWriter(buf, w)
}

// Start runs cmd in the background.
func (h *Handle) Start(_ context.Context, cmd contexts.Cmd) (contexts.Process, error) {
	argv, args, mark, err := h.execArgv(cmd, false)
	if err != nil {
		return nil, err
	}
	c, err := h.cliCmd(argv)
	if err != nil {
		return nil, err
	}
	p := procs.New(args, func(_ context.Context, sig syscall.Signal) error { return h.kill(mark, sig) })
	c.Stdin, c.Stdout, c.Stderr = cmd.Stdin, p.Out, p.Err
	if err := c.Start(); err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "container exec: %v", err)
	}
	h.Procs.Add(p)
	go func() {
		code, _ := h.wait(context.Background(), c, mark, cmd.Timeout)
		p.Finish(code)
	}()
	return p, nil
}

// ReadFile reads a file with the run user's rights.
func (h *Handle) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return shell.ReadFile(ctx, h.Exec, h.Abs(p), p)
}

// WriteFile writes a file as the run user (who then owns it).
func (h *Handle) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	return shell.WriteFile(ctx, h.Exec, h.Abs(p), p, data, perm)
}

// ListFiles lists a directory.
func (h *Handle) ListFiles(ctx context.Context, dir string) ([]contexts.FileInfo, error) {
	return shell.ListFiles(ctx, h.Exec, h.Abs(dir), dir)
}

// OpenTerminal runs `container exec --interactive --tty` on a local pty.
func (h *Handle) OpenTerminal(_ context.Context, cfg contexts.TerminalConfig) (contexts.Terminal, error) {
	argv, _, mark, err := h.execArgv(contexts.Cmd{Args: cfg.Shell(), Cwd: cfg.Cwd, Env: append([]string{"TERM=xterm-256color"}, cfg.Env...)}, true)
	if err != nil {
		return nil, err
	}
	c, err := h.cliCmd(argv)
	if err != nil {
		return nil, err
	}
	cols, rows := cfg.Size()
	f, err := pty.StartWithSize(c, &pty.Winsize{Cols: cols, Rows: rows})
	if err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "terminal: %v", err)
	}
	t := &terminal{h: h, mark: mark, f: f, cmd: c, done: make(chan struct{})}
	go func() { t.code = exitCode(c.Wait()); close(t.done) }()
	return t, nil
}

type terminal struct {
	h    *Handle
	mark string
	f    *os.File
	cmd  *exec.Cmd
	done chan struct{}
	code int
}

func (t *terminal) Read(p []byte) (int, error)  { return t.f.Read(p) }
func (t *terminal) Write(p []byte) (int, error) { return t.f.Write(p) }

// Resize resizes the local pty; the CLI passes SIGWINCH on.
func (t *terminal) Resize(cols, rows uint16) error {
	return pty.Setsize(t.f, &pty.Winsize{Cols: cols, Rows: rows})
}

func (t *terminal) Kill() error {
	err := t.h.kill(t.mark, syscall.SIGKILL)
	t.cmd.Process.Kill()
	<-t.done
	t.f.Close()
	return err
}

func (t *terminal) Detach() error {
	return contexts.Errorf(contexts.ErrUnsupported, "the apple context cannot detach a terminal")
}

func (t *terminal) Wait(ctx context.Context) (int, error) {
	select {
	case <-t.done:
		t.f.Close()
		return t.code, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}
