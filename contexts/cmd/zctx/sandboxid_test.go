//go:build linux

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts/e2b/e2btest"
)

// sandboxFlag: (attack) --sandbox went into the API's URL path as it was
// given, so "ID/pause?" made the attach (POST /sandboxes/ID/pause?/connect)
// pause a running sandbox that zctx was only asked to attach to, and "/"
// or ".." reached other routes. A --sandbox that is not an id is a usage
// error, and the sandbox, seen in the replica's state, still runs.
func sandboxFlag(t *testing.T, s *e2btest.Server) {
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
			if sb.ID == victim && sb.State != "running" {
				t.Errorf("--sandbox %q: sandbox %s is %s, want it running", id, sb.ID, sb.State)
			}
		}
	}
}
