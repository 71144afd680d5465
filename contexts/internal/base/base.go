// Package base is what every context's Handle has in common: its State,
// whether it was destroyed, its background processes and how a path is
// taken relative to its working directory. A context's Handle embeds Base
// and gets ID, State, Processes and AttachProcess from it.
package base

import (
	"context"
	"path"
	"sync"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/procs"
)

// Base is the shared part of a handle.
type Base struct {
	St    contexts.State
	Procs procs.Table

	mu        sync.Mutex
	destroyed bool
}

// New returns the base of a handle with state st.
func New(st contexts.State) Base { return Base{St: st} }

// ID returns the handle id.
func (b *Base) ID() string { return b.St.ID }

// State returns what Attach needs.
func (b *Base) State() contexts.State { return b.St }

// Alive returns ErrDestroyed once the handle was destroyed.
func (b *Base) Alive() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.destroyed {
		return contexts.Errorf(contexts.ErrDestroyed, "%s handle %s was destroyed", b.St.Kind, b.St.ID)
	}
	return nil
}

// MarkDestroyed records the destruction; it reports whether it had
// already happened.
func (b *Base) MarkDestroyed() (already bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	already, b.destroyed = b.destroyed, true
	return already
}

// Abs resolves p (slash-separated) against the handle's cwd.
func (b *Base) Abs(p string) string {
	if p == "" {
		return b.St.Cwd
	}
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(b.St.Cwd, p)
}

// Processes lists the handle's background processes, in start order.
func (b *Base) Processes(context.Context) ([]contexts.ProcessInfo, error) {
	if err := b.Alive(); err != nil {
		return nil, err
	}
	return b.Procs.List(), nil
}

// AttachProcess returns a background process of this handle. Processes
// belong to the program that started them (Capabilities.Reattach).
func (b *Base) AttachProcess(_ context.Context, id string) (contexts.Process, error) {
	if err := b.Alive(); err != nil {
		return nil, err
	}
	return b.Procs.Get(b.St.ID, id)
}
