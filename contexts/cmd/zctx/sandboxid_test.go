//go:build linux

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts/e2b/e2btest"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

// Attack: --sandbox went into the API's URL path as it was given, so
// "ID/pause?" made the attach (POST /sandboxes/ID/pause?/connect) pause
// a running sandbox that zctx was only asked to attach to, and "/" or
// ".." reached other routes. A --sandbox that is not an id is a usage
// error, and the sandbox, seen in the replica's state, still runs.
func TestSandboxFlagIsAnID(t *testing.T) {
	runner := remotetest.WithSetup(dockerRunner(t, privateDocker(t)), "true")
	const key = "e2b_sandbox_id_secret_00112233445566"
	s := e2btest.NewServer(e2btest.Options{Runner: runner, APIKey: key})
	defer s.Close()
	setup(t)
	t.Setenv("E2B_API_KEY", key)
	t.Setenv("E2B_API_URL", s.URL)
	t.Setenv("E2B_SANDBOX_URL", s.URL)
	code, out, errs := zctx(t, "", "spawn", "--context", "e2b", "--sandbox-on-destroy", "leave")
	var h struct{ Extra map[string]string }
	if code != 0 || json.Unmarshal([]byte(out), &h) != nil || h.Extra["sandbox"] == "" {
		t.Fatalf("spawn: %d %q %q", code, out, errs)
	}
	victim := h.Extra["sandbox"]
	for _, id := range []string{victim + "/pause?", "../sandboxes/" + victim, victim + "#"} {
		code, _, errs := zctx(t, "", "run", "--context", "e2b", "--sandbox", id, "--", "true")
		if code != 2 || !strings.Contains(errs, "not a sandbox id") {
			t.Errorf("--sandbox %q: %d %q; want 2, not a sandbox id", id, code, errs)
		}
		for _, sb := range s.Sandboxes() {
			if sb.State != "running" {
				t.Errorf("--sandbox %q: sandbox %s is %s, want it running", id, sb.ID, sb.State)
			}
		}
	}
}
