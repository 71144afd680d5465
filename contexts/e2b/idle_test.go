//go:build linux

package e2b

import (
	"errors"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/e2b/e2btest"
)

// Idle suspension on E2B: with AutoPause the timeout pauses the sandbox
// (its files kept) instead of killing it; a paused sandbox takes no
// command (the proxy's 502) until Attach resumes it, and with AutoResume
// the next command resumes it by itself. The timeout is run out by the
// replica (Expire), not waited for.
func TestReplica_AutoPause(t *testing.T) {
	s := replica(t, e2btest.Options{})
	for _, resume := range []bool{false, true} {
		c := provider(t, s, Options{AutoPause: true, AutoResume: resume})
		h := spawnT(t, c, contexts.SpawnConfig{})
		if info, err := c.Info(ctxT(t), h.sandbox); err != nil || info.OnTimeout != "pause" || info.AutoResume != resume {
			t.Errorf("autoResume=%v: lifecycle %+v, %v; want onTimeout pause", resume, info, err)
		}
		if err := h.WriteFile(ctxT(t), "kept", []byte("state"), 0o644); err != nil {
			t.Fatal(err)
		}
		s.Expire(h.sandbox)
		if got := states(s)[h.sandbox]; got != "paused" {
			t.Fatalf("autoResume=%v: after the timeout the sandbox is %q, want paused", resume, got)
		}
		r, err := h.Exec(ctxT(t), contexts.Cmd{Shell: "cat kept"})
		switch {
		case resume && (err != nil || string(r.Stdout) != "state"):
			t.Errorf("AutoResume: the next command = %q, %v; want it to resume the sandbox", r.Stdout, err)
		case !resume && !errors.Is(err, contexts.ErrUnavailable):
			t.Errorf("a paused sandbox without AutoResume ran a command: %q, %v", r.Stdout, err)
		case !resume:
			a, err := c.Attach(ctxT(t), h.State())
			if err != nil {
				t.Fatal(err)
			}
			if r := execT(t, a, "cat kept"); string(r.Stdout) != "state" {
				t.Errorf("Attach did not resume the paused sandbox with its files: %q", r.Stdout)
			}
		}
		if got := states(s)[h.sandbox]; got != "running" {
			t.Errorf("autoResume=%v: after resuming the sandbox is %q", resume, got)
		}
		h.Destroy(ctxT(t))
	}
	h := spawnT(t, provider(t, s, Options{}), contexts.SpawnConfig{})
	s.Expire(h.sandbox)
	if _, left := states(s)[h.sandbox]; left {
		t.Error("without AutoPause the timeout must kill the sandbox")
	}
	if _, err := New(Options{AutoResume: true}); !errors.Is(err, contexts.ErrUsage) {
		t.Errorf("AutoResume without AutoPause = %v, want a usage error", err)
	}
}
