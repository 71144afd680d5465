package process

import (
	"context"
	"os"
	"os/exec"
	"sync"

	"github.com/creack/pty"

	"github.com/zsandbox/zsandbox/contexts"
)

// OpenTerminal starts an interactive shell on a local pseudo-terminal,
// under zsandbox like every other command (zsandbox passes a terminal
// through untouched, and its seccomp filter refuses TIOCSTI).
func (h *Handle) OpenTerminal(_ context.Context, cfg contexts.TerminalConfig) (contexts.Terminal, error) {
	c, _, err := h.command(contexts.Cmd{Args: cfg.Shell(), Cwd: cfg.Cwd, Env: append([]string{"TERM=xterm-256color"}, cfg.Env...)})
	if err != nil {
		return nil, err
	}
	// pty.Start makes the shell a session leader with the terminal as its
	// controlling tty, so Setpgid must go (setsid gives it its own group).
	c.SysProcAttr = nil
	cols, rows := cfg.Size()
	f, err := pty.StartWithSize(c, &pty.Winsize{Cols: cols, Rows: rows})
	if err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "terminal: %v", err)
	}
	t := &terminal{f: f, cmd: c, done: make(chan struct{})}
	go t.wait()
	h.mu.Lock()
	h.terms = append(h.terms, t)
	h.mu.Unlock()
	return t, nil
}

type terminal struct {
	f    *os.File
	cmd  *exec.Cmd
	done chan struct{}
	once sync.Once
	code int
}

func (t *terminal) wait() {
	t.code = exitCode(t.cmd.Wait())
	close(t.done)
}

func (t *terminal) Read(p []byte) (int, error)  { return t.f.Read(p) }
func (t *terminal) Write(p []byte) (int, error) { return t.f.Write(p) }

func (t *terminal) Resize(cols, rows uint16) error {
	return pty.Setsize(t.f, &pty.Winsize{Cols: cols, Rows: rows})
}

// Kill ends the shell and everything in its session.
func (t *terminal) Kill() error {
	select {
	case <-t.done: // ended: its pid may be reused
	default:
		killGroup(t.cmd)
		<-t.done
	}
	t.once.Do(func() { t.f.Close() })
	return nil
}

// Detach is not supported: a local pty dies with its master.
func (t *terminal) Detach() error {
	return contexts.Errorf(contexts.ErrUnsupported, "the process context cannot detach a terminal (the pty ends with this program)")
}

func (t *terminal) Wait(ctx context.Context) (int, error) {
	select {
	case <-t.done:
		t.once.Do(func() { t.f.Close() })
		return t.code, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}
