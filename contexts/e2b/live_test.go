//go:build live

package e2b

import (
	"context"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

// TestLive_E2B runs the conformance suite against the real E2B service
// (go test -tags live, with E2B_API_KEY and optionally E2B_DOMAIN and
// E2B_TEMPLATE). It creates and kills real sandboxes. Never run in CI.
func TestLive_E2B(t *testing.T) {
	remotetest.Live(t, "E2B_API_KEY", "E2B", func() (contexts.Context, error) { return New(Options{}) })
	c, _ := New(Options{OnDestroy: "pause"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	h, err := c.Spawn(ctx, contexts.SpawnConfig{})
	if err != nil {
		t.Fatal(err)
	}
	h.WriteFile(ctx, "kept", []byte("x"), 0o644)
	h.Destroy(ctx)
	id := h.(*Handle).Kept()
	a, err := (&Context{}).reopen(t, id)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := a.ReadFile(ctx, "kept"); err != nil || string(b) != "x" {
		t.Errorf("resumed: %q %v", b, err)
	}
	owned, _ := New(Options{SandboxID: id, OwnAttached: true})
	if h, err := owned.Spawn(ctx, contexts.SpawnConfig{}); err == nil {
		h.Destroy(ctx)
	}
}

func (*Context) reopen(t *testing.T, id string) (contexts.Handle, error) {
	c, err := New(Options{SandboxID: id})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c.Spawn(ctx, contexts.SpawnConfig{})
}
