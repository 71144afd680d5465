package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts/internal/zsbin"
)

var zsandboxBin string

func TestMain(m *testing.M) { zsbin.Main(m, &zsandboxBin, "") }

// zctx runs the CLI in-process; every call reads the handle from the state
// directory, as separate zctx processes do.
func zctx(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func setup(t *testing.T) (work string) {
	t.Setenv("ZCTX_STATE_DIR", filepath.Join(t.TempDir(), "state"))
	return t.TempDir()
}

func TestRunPassesExitStatus(t *testing.T) {
	work := setup(t)
	code, out, errs := zctx(t, "in", "run", "--zsandbox", zsandboxBin, "--cwd", work, "--", "sh", "-c", "cat; echo err >&2; exit 5")
	if code != 5 || out != "in" || !strings.Contains(errs, "err") {
		t.Errorf("run: %d %q %q, want 5 \"in\" err", code, out, errs)
	}
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "--context", "nope", "--", "true"}, 2, `unknown context "nope"`},
		{[]string{"run", "--zsandbox", zsandboxBin}, 2, "no command"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"run", "--zsandbox", "/nonexistent/zsandbox", "--", "true"}, 127, "nothing ran"},
		{[]string{"exec", "no-such-handle", "--", "true"}, 127, "no handle"},
		{[]string{"run", "--zsandbox", zsandboxBin, "--timeout", "200ms", "--", "sleep", "30"}, 124, "--timeout"},
	}
	for _, c := range cases {
		code, _, errs := zctx(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, "zctx: error: ") || !strings.Contains(errs, c.msg) {
			t.Errorf("zctx %q = %d %q; want %d and %q", c.args, code, errs, c.code, c.msg)
		}
	}
	if _, _, errs := zctx(t, "", "run", "--zsandbox", zsandboxBin, "--image", "x", "--", "true"); !strings.Contains(errs, "zctx: warning: --image does not apply to the process context") {
		t.Errorf("--image for process: no warning: %q", errs)
	}
}

func TestHandleAcrossRuns(t *testing.T) {
	work := setup(t)
	code, out, errs := zctx(t, "", "spawn", "--zsandbox", zsandboxBin, "--cwd", work, "--env", "A=spawned")
	if code != 0 {
		t.Fatalf("spawn: %d %s", code, errs)
	}
	var h struct{ ID string }
	if err := json.Unmarshal([]byte(out), &h); err != nil || h.ID == "" {
		t.Fatalf("spawn printed %q: %v", out, err)
	}
	if code, out, _ := zctx(t, "", "exec", h.ID, "--env", "B=b", "--", "sh", "-c", `echo "$A$B"; pwd`); code != 0 || out != "spawnedb\n"+work+"\n" {
		t.Errorf("exec: %d %q", code, out)
	}
	if code, _, errs := zctx(t, "payload", "cp", "-", h.ID+":dir/f.txt"); code != 0 {
		t.Errorf("cp to: %d %s", code, errs)
	}
	if code, out, _ := zctx(t, "", "cp", h.ID+":dir/f.txt", "-"); code != 0 || out != "payload" {
		t.Errorf("cp from: %d %q", code, out)
	}
	if code, out, _ := zctx(t, "", "ls", h.ID, "dir"); code != 0 || !strings.Contains(out, `"name":"f.txt"`) {
		t.Errorf("ls: %d %q", code, out)
	}
	if code, out, _ := zctx(t, "", "ls"); code != 0 || !strings.Contains(out, h.ID) {
		t.Errorf("ls handles: %d %q", code, out)
	}
	for i := 0; i < 2; i++ {
		if code, _, errs := zctx(t, "", "destroy", h.ID); code != 0 {
			t.Errorf("destroy #%d: %d %s", i+1, code, errs)
		}
	}
	if code, _, errs := zctx(t, "", "exec", h.ID, "--", "true"); code != 127 || !strings.Contains(errs, "destroyed") {
		t.Errorf("exec after destroy: %d %q", code, errs)
	}
}

// Attack: a command reads or rewrites zctx's own handle records (to widen
// the next command's sandbox: --isolation off, another zsandbox). The
// state directory is hidden from every command, even when it lies inside
// a writable root.
func TestStateHiddenFromCommands(t *testing.T) {
	work := setup(t)
	state := filepath.Join(work, ".zctx-state") // inside the cwd: writable
	t.Setenv("ZCTX_STATE_DIR", state)
	_, out, errs := zctx(t, "", "spawn", "--zsandbox", zsandboxBin, "--cwd", work)
	var h struct{ ID string }
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatalf("spawn: %q %q", out, errs)
	}
	rec := filepath.Join(state, h.ID+".json")
	before, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := zctx(t, "", "exec", h.ID, "--", "sh", "-c",
		`cat "$1"; echo '{"options":{"Isolation":"off"}}' > "$1"; rm -rf "$2"; ls "$2"; echo done`, "sh", rec, state)
	if !strings.Contains(out, "done") || strings.Contains(out, "zsandbox") {
		t.Fatalf("attack did not run as expected: %d %q", code, out)
	}
	after, err := os.ReadFile(rec)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the handle record changed under a command: %q (%v)", after, err)
	}
	if code, _, _ := zctx(t, "", "cp", h.ID+":.zctx-state/"+h.ID+".json", "-"); code == 0 {
		t.Errorf("zctx cp read the state directory")
	}
}
