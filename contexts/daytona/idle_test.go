//go:build linux

package daytona

import (
	"sync"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/daytona/daytonatest"
)

// clock is a time the test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// Idle suspension on Daytona: with autoStopInterval 15 a sandbox with no
// toolbox call for 15 minutes stops (a command resets the count), keeps
// its disk, is archived after autoArchiveInterval, and Attach (the next
// zctx command) starts it again with its files; autoDeleteInterval 0
// deletes it once stopped. Time is the replica's clock, moved by the test.
func TestReplica_IdleStopArchiveResume(t *testing.T) {
	clk := &clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	s := replica(t, daytonatest.Options{Clock: clk.Now})
	stop, archive := int32(15), int32(60)
	c := provider(t, s, Options{AutoStopInterval: &stop, AutoArchiveInterval: &archive})
	h := spawnT(t, c, contexts.SpawnConfig{})
	defer h.Destroy(ctxT(t))
	if err := h.WriteFile(ctxT(t), "kept", []byte("disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	step := func(d time.Duration, want string) {
		t.Helper()
		clk.Advance(d)
		s.Tick()
		if got := states(s)[h.sandbox]; got != want {
			t.Fatalf("after %v more: %q, want %q", d, got, want)
		}
	}
	step(14*time.Minute, "started")
	execT(t, h, "true") // activity: the idle count starts again
	step(14*time.Minute, "started")
	step(time.Minute, "stopped")
	step(59*time.Minute, "stopped")
	step(time.Minute, "archived")
	a, err := c.Attach(ctxT(t), h.State())
	if err != nil {
		t.Fatal(err)
	}
	if got := states(s)[h.sandbox]; got != "started" {
		t.Errorf("Attach left the archived sandbox %q", got)
	}
	if b, err := a.ReadFile(ctxT(t), "kept"); err != nil || string(b) != "disk" {
		t.Errorf("resumed sandbox: %q, %v; want its file", b, err)
	}

	zero := int32(0)
	gone := spawnT(t, provider(t, s, Options{AutoStopInterval: &stop, AutoDeleteInterval: &zero}), contexts.SpawnConfig{})
	clk.Advance(15 * time.Minute)
	s.Tick() // stops it
	s.Tick() // deletes it: stopped for 0 minutes
	if _, left := states(s)[gone.sandbox]; left {
		t.Error("autoDeleteInterval 0 did not delete the stopped sandbox")
	}
}
