//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts/internal/dockertest"
)

// zctx against the real (private) dockerd: one-shot run with the exit
// status passed through, and a handle used by separate zctx invocations
// until destroy.
func TestDocker(t *testing.T) {
	d := privateDocker(t)
	setup(t)
	base := []string{"--context", "docker", "--docker-host", d.Host, "--image", dockertest.Image}
	code, out, errs := zctx(t, "", append(append([]string{"run"}, base...), "--cwd", "/workspace", "--env", "A=1", "--", "sh", "-c", `echo "$A"; pwd; exit 4`)...)
	if code != 4 || out != "1\n/workspace\n" {
		t.Errorf("run: %d %q %q", code, out, errs)
	}
	if _, _, errs := zctx(t, "", append(append([]string{"run"}, base...), "--writable", "/x", "--", "true")...); !strings.Contains(errs, "--writable does not apply to the docker context") {
		t.Errorf("no warning for --writable: %q", errs)
	}
	code, out, errs = zctx(t, "", append([]string{"spawn"}, base...)...)
	var h struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &h) != nil {
		t.Fatalf("spawn: %d %q %q", code, out, errs)
	}
	zctx(t, "state", "cp", "-", h.ID+":keep.txt")
	if code, out, _ := zctx(t, "", "exec", h.ID, "--", "cat", "keep.txt"); code != 0 || out != "state" {
		t.Errorf("exec in the same container: %d %q", code, out)
	}
	if code, _, errs := zctx(t, "", "destroy", h.ID); code != 0 {
		t.Errorf("destroy: %s", errs)
	}
	if code, _, errs := zctx(t, "", "exec", h.ID, "--", "true"); code != 127 || !strings.Contains(errs, "destroyed") {
		t.Errorf("exec after destroy: %d %q", code, errs)
	}
	if code, _, errs := zctx(t, "", "run", "--context", "docker", "--docker-host", "unix:///nonexistent.sock", "--", "true"); code != 127 || !strings.Contains(errs, "does not answer") {
		t.Errorf("no daemon: %d %q", code, errs)
	}
	// Attack: a mount that holds zctx's own state lets the container
	// rewrite a handle's record (kind process, isolation off) and run the
	// next `zctx exec` on the host. zctx hides its state: refused.
	parent := filepath.Dir(os.Getenv("ZCTX_STATE_DIR"))
	code, _, errs = zctx(t, "", append(append([]string{"run"}, base...), "--mount", parent+":/workspace", "--", "sh", "-c", "echo {} > /workspace/state/planted.json")...)
	if code != 127 || !strings.Contains(errs, "hidden path") {
		t.Errorf("a mount holding the state directory: %d %q, want 127 naming the hidden path", code, errs)
	}
	if _, err := os.Stat(filepath.Join(parent, "state", "planted.json")); err == nil {
		t.Errorf("the container wrote into zctx's state directory")
	}
}
