package docker

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/outbuf"
	"github.com/zsandbox/zsandbox/contexts/internal/shell"
)

// withPassed adds the host's values of the pass-env names to env.
func withPassed(env, pass []string) []string {
	out := append([]string(nil), env...)
	for _, n := range pass {
		if v, ok := os.LookupEnv(n); ok {
			out = append(out, n+"="+v)
		}
	}
	return out
}

// argv is cmd's command line.
func argv(cmd contexts.Cmd) ([]string, error) {
	switch {
	case len(cmd.Args) > 0 && cmd.Shell != "":
		return nil, contexts.Errorf(contexts.ErrUsage, "command has both Args and Shell")
	case len(cmd.Args) > 0:
		return cmd.Args, nil
	case strings.TrimSpace(cmd.Shell) != "":
		return []string{"/bin/sh", "-c", cmd.Shell}, nil
	}
	return nil, contexts.Errorf(contexts.ErrUsage, "empty command")
}

func (h *Handle) abs(p string) string {
	if p == "" {
		return h.st.Cwd
	}
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(h.st.Cwd, p)
}

// running is one exec in flight.
type running struct {
	id, mark string
	resp     client.HijackedResponse
}

// start creates and attaches an exec for cmd.
func (h *Handle) start(ctx context.Context, cmd contexts.Cmd, tty bool, size [2]uint) (*running, []string, error) {
	if err := h.checkAlive(); err != nil {
		return nil, nil, err
	}
	args, err := argv(cmd)
	if err != nil {
		return nil, nil, err
	}
	mark, err := randomMark()
	if err != nil {
		return nil, nil, err
	}
	env := append(withPassed(cmd.Env, cmd.PassEnv), shell.Mark+"="+mark)
	wrapped := shell.Exec(args)
	opts := client.ExecCreateOptions{Cmd: wrapped, Env: env, WorkingDir: h.abs(cmd.Cwd), User: h.user,
		AttachStdout: true, AttachStderr: true, AttachStdin: true, TTY: tty}
	if tty {
		opts.ConsoleSize = client.ConsoleSize{Height: size[0], Width: size[1]}
	}
	ex, err := h.c.cli.ExecCreate(ctx, h.container, opts)
	if err != nil {
		return nil, nil, h.c.apiErr("exec", err)
	}
	att, err := h.c.cli.ExecAttach(ctx, ex.ID, client.ExecAttachOptions{TTY: tty, ConsoleSize: opts.ConsoleSize})
	if err != nil {
		return nil, nil, h.c.apiErr("exec attach", err)
	}
	return &running{id: ex.ID, mark: mark, resp: att.HijackedResponse}, args, nil
}

// feed copies stdin into the exec and half-closes it (EOF for the command).
func (r *running) feed(stdin io.Reader) {
	if stdin != nil {
		io.Copy(r.resp.Conn, stdin)
	}
	r.resp.CloseWrite()
}

// Exec runs cmd to the end.
func (h *Handle) Exec(ctx context.Context, cmd contexts.Cmd) (contexts.Result, error) {
	r, _, err := h.start(ctx, cmd, false, [2]uint{})
	if err != nil {
		return contexts.Result{ExitCode: contexts.ExitCannotRun, Stderr: []byte(err.Error() + "\n")}, err
	}
	defer r.resp.Close()
	go r.feed(cmd.Stdin)
	var stdout, stderr bytes.Buffer
	copied := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(tee(&stdout, cmd.Stdout), tee(&stderr, cmd.Stderr), r.resp.Reader)
		copied <- err
	}()
	timedOut, err := h.waitCopy(ctx, r, copied, cmd.Timeout)
	res := contexts.Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), TimedOut: timedOut}
	if err != nil {
		res.ExitCode = contexts.ExitCannotRun
		return res, err
	}
	if timedOut {
		res.ExitCode = contexts.ExitTimeout
		return res, nil
	}
	res.ExitCode, err = h.exitCode(ctx, r.id)
	return res, err
}

// waitCopy waits for the output to end; past timeout (or when ctx ends)
// it kills the exec's process tree first.
func (h *Handle) waitCopy(ctx context.Context, r *running, copied <-chan error, timeout time.Duration) (bool, error) {
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	select {
	case err := <-copied:
		return false, h.streamErr(err)
	case <-expire:
		h.signal(context.WithoutCancel(ctx), r.mark, syscall.SIGKILL)
		<-copied
		return true, nil
	case <-ctx.Done():
		h.signal(context.WithoutCancel(ctx), r.mark, syscall.SIGKILL)
		<-copied
		return false, ctx.Err()
	}
}

func (h *Handle) streamErr(err error) error {
	if err == nil {
		return nil
	}
	return contexts.Errorf(contexts.ErrUnavailable, "exec output from the Docker daemon at %s broke off: %v", h.c.cli.DaemonHost(), err)
}

// exitCode asks the daemon how the exec ended (the stream has closed, but
// the daemon may record the exit a moment later).
func (h *Handle) exitCode(ctx context.Context, id string) (int, error) {
	for i := 0; ; i++ {
		ins, err := h.c.cli.ExecInspect(ctx, id, client.ExecInspectOptions{})
		if err != nil {
			return contexts.ExitCannotRun, h.c.apiErr("exec inspect", err)
		}
		if !ins.Running || i == 1000 {
			return ins.ExitCode, nil
		}
		time.Sleep(time.Millisecond)
	}
}

// signal sends sig to every process of the exec marked mark, from a
// second exec run as the same user (with no capabilities, root in the
// container can signal only its own processes).
func (h *Handle) signal(ctx context.Context, mark string, sig syscall.Signal) error {
	ex, err := h.c.cli.ExecCreate(ctx, h.container, client.ExecCreateOptions{
		Cmd: shell.KillArgs(int(sig), mark), User: h.user})
	if err != nil {
		return h.c.apiErr("signal", err)
	}
	att, err := h.c.cli.ExecAttach(ctx, ex.ID, client.ExecAttachOptions{})
	if err != nil {
		return h.c.apiErr("signal", err)
	}
	defer att.Close()
	io.Copy(io.Discard, att.Reader)
	return nil
}

func tee(buf *bytes.Buffer, w io.Writer) io.Writer {
	if w == nil {
		return buf
	}
	return io.MultiWriter(buf, w)
}

func randomMark() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", contexts.Errorf(contexts.ErrUnavailable, "random mark: %v", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// proc is a background exec.
type proc struct {
	h              *Handle
	id             string
	args           []string
	r              *running
	stdout, stderr *outbuf.Buffer
	done           chan struct{}

	mu       sync.Mutex
	exitCode int
	running  bool
}

// Start runs cmd in the background.
func (h *Handle) Start(ctx context.Context, cmd contexts.Cmd) (contexts.Process, error) {
	r, args, err := h.start(ctx, cmd, false, [2]uint{})
	if err != nil {
		return nil, err
	}
	p := &proc{h: h, args: args, r: r, stdout: outbuf.New(), stderr: outbuf.New(), done: make(chan struct{}), running: true}
	go r.feed(cmd.Stdin)
	h.mu.Lock()
	h.nextProc++
	p.id = strconv.Itoa(h.nextProc)
	h.procs[p.id] = p
	h.mu.Unlock()
	go p.wait(cmd.Timeout)
	return p, nil
}

func (p *proc) wait(timeout time.Duration) {
	copied := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(p.stdout, p.stderr, p.r.resp.Reader)
		copied <- err
	}()
	timedOut, err := p.h.waitCopy(context.Background(), p.r, copied, timeout)
	code := contexts.ExitTimeout
	if err != nil {
		code = contexts.ExitCannotRun
	} else if !timedOut {
		code, _ = p.h.exitCode(context.Background(), p.r.id)
	}
	p.r.resp.Close()
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

// Signal sends sig to the exec's process group.
func (p *proc) Signal(ctx context.Context, sig syscall.Signal) error {
	select {
	case <-p.done:
		return contexts.Errorf(contexts.ErrNotFound, "process %s has ended", p.id)
	default:
	}
	return p.h.signal(ctx, p.r.mark, sig)
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

// Processes lists the handle's background processes, in start order.
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

// AttachProcess returns a background process of this handle (the Engine
// API cannot re-attach to an exec's output, so another program cannot).
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

