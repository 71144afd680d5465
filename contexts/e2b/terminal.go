package e2b

import (
	"context"
	"errors"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/e2b/internal/wire"
	"github.com/zsandbox/zsandbox/contexts/internal/outbuf"
)

// loginShell is what the SDK's sandbox.pty.create runs.
var loginShell = []string{"/bin/bash", "-i", "-l"}

// OpenTerminal starts a shell on an envd pseudo-terminal (process.Start
// with pty, as the SDK's sandbox.pty.create): output arrives as pty data,
// typing is SendInput with pty bytes, a resize is Update. The stream has
// no deadline: a terminal lives until it exits or is killed.
func (h *Handle) OpenTerminal(ctx context.Context, cfg contexts.TerminalConfig) (contexts.Terminal, error) {
	cols, rows := cfg.Size()
	args := cfg.Args
	if len(args) == 0 {
		args = loginShell
	}
	// The SDK's defaults, which the caller's env can override.
	env := append([]string{"TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}, cfg.Env...)
	streamCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p, _, err := h.begin(streamCtx, contexts.Cmd{Args: args, Cwd: cfg.Cwd, Env: env}, "",
		&wire.PTY{Size: wire.Size{Cols: uint32(cols), Rows: uint32(rows)}})
	if err != nil {
		cancel()
		return nil, err
	}
	t := &terminal{p: p, cancel: cancel, out: outbuf.New(), done: make(chan struct{})}
	t.r = t.out.Reader()
	go func() {
		t.code, t.err = p.drain(t.out, io.Discard)
		t.out.Close()
		close(t.done)
	}()
	h.termMu.Lock()
	h.terms = append(h.terms, t)
	h.termMu.Unlock()
	return t, nil
}

type terminal struct {
	p      *proc
	cancel context.CancelFunc
	out    *outbuf.Buffer
	r      io.Reader
	done   chan struct{}
	code   int
	err    error
	once   sync.Once
}

func (t *terminal) Read(b []byte) (int, error) { return t.r.Read(b) }

// Write types b into the terminal (SendInput with pty bytes).
func (t *terminal) Write(b []byte) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for off := 0; off < len(b); off += stdinChunk {
		chunk := b[off:min(off+stdinChunk, len(b))]
		in := &wire.SendInputRequest{Process: t.p.selector(), Input: wire.ProcessInput{Pty: chunk}}
		if _, err := unary[wire.SendInputRequest, wire.Empty](ctx, t.p.h.envd, wire.ProcSendInput, in); err != nil {
			return off, err
		}
	}
	return len(b), nil
}

// Resize sends the new size (process.Process/Update).
func (t *terminal) Resize(cols, rows uint16) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := unary[wire.UpdateRequest, wire.Empty](ctx, t.p.h.envd, wire.ProcUpdate,
		&wire.UpdateRequest{Process: t.p.selector(), Pty: &wire.PTY{Size: wire.Size{Cols: uint32(cols), Rows: uint32(rows)}}})
	return err
}

// Kill sends SIGKILL (as the SDK's pty.kill) and waits for the end event;
// if envd does not take the kill, the stream is dropped.
func (t *terminal) Kill() error {
	select {
	case <-t.done:
		return nil
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := t.p.signal(ctx, syscall.SIGKILL)
	if errors.Is(err, contexts.ErrNotFound) {
		err = nil // it ended meanwhile
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		t.cancel()
		<-t.done
	}
	return err
}

// Detach is not supported: envd keeps a PTY running without a client
// (the SDK's pty.connect re-attaches by pid), but the contexts interface
// has no call to re-attach a terminal, so a detached one could only leak.
func (t *terminal) Detach() error {
	return contexts.Errorf(contexts.ErrUnsupported, "e2b: detaching a terminal is not supported (there is no call to re-attach it)")
}

// Wait returns the shell's exit code once its stream has ended.
func (t *terminal) Wait(ctx context.Context) (int, error) {
	select {
	case <-t.done:
		t.once.Do(t.cancel)
		return t.code, t.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// killTerminals ends the handle's terminals (Destroy of a sandbox that is
// kept: a shell must not outlive the handle that opened it).
func (h *Handle) killTerminals() {
	h.termMu.Lock()
	terms := h.terms
	h.terms = nil
	h.termMu.Unlock()
	for _, t := range terms {
		t.Kill()
	}
}
