package apple

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/outbuf"
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
	h.kill(mark, syscall.SIGKILL)
	err := <-done
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

type proc struct {
	h              *Handle
	id, mark       string
	args           []string
	stdout, stderr *outbuf.Buffer
	done           chan struct{}

	mu       sync.Mutex
	exitCode int
	running  bool
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
	p := &proc{h: h, mark: mark, args: args, stdout: outbuf.New(), stderr: outbuf.New(), done: make(chan struct{}), running: true}
	c.Stdin, c.Stdout, c.Stderr = cmd.Stdin, p.stdout, p.stderr
	if err := c.Start(); err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "container exec: %v", err)
	}
	h.mu.Lock()
	h.nextProc++
	p.id = strconv.Itoa(h.nextProc)
	h.procs[p.id] = p
	h.mu.Unlock()
	go func() {
		code, _ := h.wait(context.Background(), c, mark, cmd.Timeout)
		p.stdout.Close()
		p.stderr.Close()
		p.mu.Lock()
		p.exitCode, p.running = code, false
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) ID() string        { return p.id }
func (p *proc) Stdout() io.Reader { return p.stdout.Reader() }
func (p *proc) Stderr() io.Reader { return p.stderr.Reader() }

func (p *proc) Signal(_ context.Context, sig syscall.Signal) error {
	select {
	case <-p.done:
		return contexts.Errorf(contexts.ErrNotFound, "process %s has ended", p.id)
	default:
	}
	return p.h.kill(p.mark, sig)
}

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

// Processes lists the handle's background processes.
func (h *Handle) Processes(context.Context) ([]contexts.ProcessInfo, error) {
	if err := h.checkAlive(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []contexts.ProcessInfo
	for i := 1; i <= h.nextProc; i++ {
		if p, ok := h.procs[strconv.Itoa(i)]; ok {
			p.mu.Lock()
			out = append(out, contexts.ProcessInfo{ID: p.id, Args: p.args, Running: p.running, ExitCode: p.exitCode})
			p.mu.Unlock()
		}
	}
	return out, nil
}

// AttachProcess returns a background process of this handle.
func (h *Handle) AttachProcess(_ context.Context, id string) (contexts.Process, error) {
	if err := h.checkAlive(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.procs[id]; ok {
		return p, nil
	}
	return nil, contexts.Errorf(contexts.ErrNotFound, "no background process %q on handle %s", id, h.st.ID)
}

// ReadFile cats the file out of the container (binary-safe on stdout).
func (h *Handle) ReadFile(ctx context.Context, p string) ([]byte, error) {
	r, err := h.Exec(ctx, contexts.Cmd{Args: []string{"cat", "--", h.abs(p)}})
	if err != nil {
		return nil, err
	}
	if r.ExitCode != 0 {
		if strings.Contains(string(r.Stderr), "No such file") || strings.Contains(string(r.Stderr), "can't open") {
			return nil, contexts.Errorf(contexts.ErrNotFound, "read %q: %s", p, strings.TrimSpace(string(r.Stderr)))
		}
		return nil, contexts.Errorf(contexts.ErrUnavailable, "read %q: %s", p, strings.TrimSpace(string(r.Stderr)))
	}
	return r.Stdout, nil
}

// WriteFile streams data into the file as the run user (who then owns it).
func (h *Handle) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	abs := h.abs(p)
	r, err := h.Exec(ctx, contexts.Cmd{Args: []string{"/bin/sh", "-c", `mkdir -p -- "$(dirname -- "$1")" && cat > "$1" && chmod "$2" "$1"`,
		"zctx-write", abs, strconv.FormatUint(uint64(perm.Perm()), 8)}, Stdin: bytes.NewReader(data)})
	if err != nil {
		return err
	}
	if r.ExitCode != 0 {
		return contexts.Errorf(contexts.ErrDenied, "write %q: %s", p, strings.TrimSpace(string(r.Stderr)))
	}
	return nil
}

// ListFiles lists a directory with an exec.
func (h *Handle) ListFiles(ctx context.Context, dir string) ([]contexts.FileInfo, error) {
	r, err := h.Exec(ctx, contexts.Cmd{Args: shell.ListArgs(h.abs(dir))})
	if err != nil {
		return nil, err
	}
	return shell.ListResult(dir, r)
}

// OpenTerminal runs `container exec --interactive --tty` on a local pty.
func (h *Handle) OpenTerminal(_ context.Context, cfg contexts.TerminalConfig) (contexts.Terminal, error) {
	args := cfg.Args
	if len(args) == 0 {
		args = []string{"/bin/sh", "-l"}
	}
	argv, _, mark, err := h.execArgv(contexts.Cmd{Args: args, Cwd: cfg.Cwd, Env: append([]string{"TERM=xterm-256color"}, cfg.Env...)}, true)
	if err != nil {
		return nil, err
	}
	c, err := h.cliCmd(argv)
	if err != nil {
		return nil, err
	}
	f, err := pty.StartWithSize(c, &pty.Winsize{Cols: orDefault(cfg.Cols, 80), Rows: orDefault(cfg.Rows, 24)})
	if err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "terminal: %v", err)
	}
	t := &terminal{h: h, mark: mark, f: f, cmd: c, done: make(chan struct{})}
	go func() { t.code = exitCode(c.Wait()); close(t.done) }()
	return t, nil
}

func orDefault(v, d uint16) uint16 {
	if v == 0 {
		return d
	}
	return v
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
