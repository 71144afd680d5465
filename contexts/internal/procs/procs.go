// Package procs is the bookkeeping every context shares for background
// processes: a Proc holds a running command's output (replayable, see
// outbuf) and exit code; a Table numbers a handle's Procs and lists them;
// Wait is the one timeout rule (kill the tree, report 124).
package procs

import (
	"context"
	"io"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/outbuf"
)

// Proc is one background process; it implements contexts.Process.
type Proc struct {
	id       string
	args     []string
	signal   func(context.Context, syscall.Signal) error
	Out, Err *outbuf.Buffer // where the command writes
	done     chan struct{}

	mu       sync.Mutex
	exitCode int
	running  bool
}

// New returns a running Proc; signal delivers Signal calls.
func New(args []string, signal func(context.Context, syscall.Signal) error) *Proc {
	return &Proc{args: args, signal: signal, Out: outbuf.New(), Err: outbuf.New(), done: make(chan struct{}), running: true}
}

// Finish records the exit code and ends the output.
func (p *Proc) Finish(code int) {
	p.Out.Close()
	p.Err.Close()
	p.mu.Lock()
	p.exitCode, p.running = code, false
	p.mu.Unlock()
	close(p.done)
}

// Done is closed when the process has ended.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Ended reports whether the process has ended (its pid may be reused).
func (p *Proc) Ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *Proc) ID() string        { return p.id }
func (p *Proc) Stdout() io.Reader { return p.Out.Reader() }
func (p *Proc) Stderr() io.Reader { return p.Err.Reader() }

// Signal sends sig unless the process has ended.
func (p *Proc) Signal(ctx context.Context, sig syscall.Signal) error {
	if p.Ended() {
		return contexts.Errorf(contexts.ErrNotFound, "process %s has ended", p.id)
	}
	return p.signal(ctx, sig)
}

// Wait blocks until the process ends.
func (p *Proc) Wait(ctx context.Context) (contexts.Result, error) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return contexts.Result{}, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return contexts.Result{Stdout: p.Out.Bytes(), Stderr: p.Err.Bytes(), ExitCode: p.exitCode,
		TimedOut: p.exitCode == contexts.ExitTimeout}, nil
}

func (p *Proc) info() contexts.ProcessInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	return contexts.ProcessInfo{ID: p.id, Args: p.args, Running: p.running, ExitCode: p.exitCode}
}

// Table is a handle's background processes, numbered from 1.
type Table struct {
	mu    sync.Mutex
	procs []*Proc
}

// Add numbers p and keeps it.
func (t *Table) Add(p *Proc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.procs = append(t.procs, p)
	p.id = strconv.Itoa(len(t.procs))
}

// List describes every process, in start order.
func (t *Table) List() []contexts.ProcessInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]contexts.ProcessInfo, 0, len(t.procs))
	for _, p := range t.procs {
		out = append(out, p.info())
	}
	return out
}

// Get returns process id. Processes belong to the program that started
// them: another program's handle cannot re-attach (Capabilities.Reattach).
func (t *Table) Get(handle, id string) (*Proc, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, err := strconv.Atoi(id)
	if err != nil || n < 1 || n > len(t.procs) {
		return nil, contexts.Errorf(contexts.ErrNotFound, "no background process %q on handle %s", id, handle)
	}
	return t.procs[n-1], nil
}

// All returns every process (for Destroy).
func (t *Table) All() []*Proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*Proc(nil), t.procs...)
}

// Wait waits for done; past timeout (0: none), or when ctx ends, it calls
// kill (which must end the whole process tree) and waits again. It
// returns done's error and whether the timeout struck.
func Wait(ctx context.Context, done <-chan error, timeout time.Duration, kill func()) (err error, timedOut bool) {
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	select {
	case err := <-done:
		return err, false
	case <-expire:
		timedOut = true
	case <-ctx.Done():
	}
	kill()
	return <-done, timedOut
}
