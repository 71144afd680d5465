package docker

import (
	"context"
	"syscall"

	"github.com/moby/moby/client"

	"github.com/zsandbox/zsandbox/contexts"
)

// OpenTerminal runs an interactive shell in an exec with a TTY.
func (h *Handle) OpenTerminal(ctx context.Context, cfg contexts.TerminalConfig) (contexts.Terminal, error) {
	cols, rows := cfg.Size()
	r, _, err := h.start(ctx, contexts.Cmd{Args: cfg.Shell(), Cwd: cfg.Cwd, Env: append([]string{"TERM=xterm-256color"}, cfg.Env...)}, true, [2]uint{uint(rows), uint(cols)})
	if err != nil {
		return nil, err
	}
	t := &terminal{h: h, r: r}
	// The size given at exec start is ignored below API 1.42 (Debian's
	// 20.10 speaks 1.41: the shell saw 0×0 and stty size failed), so it is
	// set again once the exec runs, as the docker CLI does.
	if err := t.Resize(cols, rows); err != nil {
		t.Kill()
		return nil, contexts.Errorf(contexts.ErrUnavailable, "docker: terminal size: %v", err)
	}
	return t, nil
}

type terminal struct {
	h *Handle
	r *running
}

func (t *terminal) Read(p []byte) (int, error)  { return t.r.resp.Reader.Read(p) }
func (t *terminal) Write(p []byte) (int, error) { return t.r.resp.Conn.Write(p) }

func (t *terminal) Resize(cols, rows uint16) error {
	_, err := t.h.c.cli.ExecResize(context.Background(), t.r.id, client.ExecResizeOptions{Height: uint(rows), Width: uint(cols)})
	return err
}

// Kill ends the shell and its process group.
func (t *terminal) Kill() error {
	err := t.h.signal(context.Background(), t.r.mark, syscall.SIGKILL)
	t.r.resp.Close()
	return err
}

// Detach is not supported: the Engine API cannot re-attach to an exec.
func (t *terminal) Detach() error {
	return contexts.Errorf(contexts.ErrUnsupported, "the docker context cannot detach a terminal (an exec cannot be re-attached)")
}

// Wait reads the terminal to its end and returns the shell's exit code.
func (t *terminal) Wait(ctx context.Context) (int, error) {
	buf := make([]byte, 4096)
	for {
		if _, err := t.r.resp.Reader.Read(buf); err != nil {
			break
		}
	}
	t.r.resp.Close()
	return t.h.exitCode(ctx, t.r.id)
}
