package docker

import (
	"bytes"
	"context"
	"io"
	"syscall"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/procs"
	"github.com/zsandbox/zsandbox/contexts/internal/shell"
)

// running is one exec in flight.
type running struct {
	id, mark string
	resp     client.HijackedResponse
}

// start creates and attaches an exec for cmd.
func (h *Handle) start(ctx context.Context, cmd contexts.Cmd, tty bool, size [2]uint) (*running, []string, error) {
	if err := h.Alive(); err != nil {
		return nil, nil, err
	}
	args, err := cmd.Argv()
	if err != nil {
		return nil, nil, err
	}
	mark, err := contexts.NewID("m")
	if err != nil {
		return nil, nil, err
	}
	env := append(contexts.WithPassed(cmd.Env, cmd.PassEnv), shell.Mark+"="+mark)
	wrapped := shell.Exec(args)
	opts := client.ExecCreateOptions{Cmd: wrapped, Env: env, WorkingDir: h.Abs(cmd.Cwd), User: h.user,
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

// killGrace is how long the output of a killed exec may still run on
// before the connection is closed (exec.Cmd's WaitDelay, for an exec).
const killGrace = 2 * time.Second

// waitCopy waits for the output to end; past timeout (or when ctx ends)
// it kills the exec's process tree first. The kill finds the processes by
// their ZCTX_EXEC mark, which a command can shed (`exec env -i sleep
// 1000`, or a child that clears its environment and keeps stdout open):
// then the output would never end and the timeout would hang its caller
// for good, so past killGrace the connection is closed and the caller
// gets 124 all the same. What shed the mark runs on in the container
// until Destroy removes it.
func (h *Handle) waitCopy(ctx context.Context, r *running, copied <-chan error, timeout time.Duration) (bool, error) {
	err, timedOut := procs.Wait(ctx, copied, timeout, func() {
		h.signal(context.WithoutCancel(ctx), r.mark, syscall.SIGKILL)
		time.AfterFunc(killGrace, func() { r.resp.Close() })
	})
	switch {
	case timedOut:
		return true, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	}
	return false, h.streamErr(err)
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

// Start runs cmd in the background.
func (h *Handle) Start(ctx context.Context, cmd contexts.Cmd) (contexts.Process, error) {
	r, args, err := h.start(ctx, cmd, false, [2]uint{})
	if err != nil {
		return nil, err
	}
	p := procs.New(args, func(ctx context.Context, sig syscall.Signal) error { return h.signal(ctx, r.mark, sig) })
	go r.feed(cmd.Stdin)
	h.Procs.Add(p)
	go func() {
		copied := make(chan error, 1)
		go func() {
			_, err := stdcopy.StdCopy(p.Out, p.Err, r.resp.Reader)
			copied <- err
		}()
		timedOut, err := h.waitCopy(context.Background(), r, copied, cmd.Timeout)
		code := contexts.ExitTimeout
		if err != nil {
			code = contexts.ExitCannotRun
		} else if !timedOut {
			code, _ = h.exitCode(context.Background(), r.id)
		}
		r.resp.Close()
		p.Finish(code)
	}()
	return p, nil
}
