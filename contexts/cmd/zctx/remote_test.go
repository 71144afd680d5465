//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/daytona/daytonatest"
	"github.com/zsandbox/zsandbox/contexts/docker"
	"github.com/zsandbox/zsandbox/contexts/e2b/e2btest"
	"github.com/zsandbox/zsandbox/contexts/internal/dockertest"
)

// zctx --context e2b against the replica: pause prints the id, --sandbox
// resumes it, --pregame runs first, and the API key appears in no output,
// handle JSON or state file.
func TestE2BReplica(t *testing.T) {
	d, skip, err := dockertest.Start()
	if err != nil {
		t.Fatal(err)
	}
	if d == nil {
		t.Skip(skip)
	}
	defer d.Stop()
	runner, err := docker.New(contexts.Options{Host: d.Host, Image: dockertest.Image})
	if err != nil {
		t.Fatal(err)
	}
	const key = "e2b_zctx_secret_00112233445566778899"
	s := e2btest.NewServer(e2btest.Options{Runner: runner, APIKey: key})
	defer s.Close()
	setup(t)
	t.Setenv("E2B_API_KEY", key)
	t.Setenv("E2B_API_URL", s.URL)
	t.Setenv("E2B_SANDBOX_URL", s.URL)
	pre := filepath.Join(t.TempDir(), "prep.sh")
	os.WriteFile(pre, []byte("echo prepared > /tmp/prep.out\n"), 0o644)

	code, out, errs := zctx(t, "", "run", "--context", "e2b", "--pregame", pre, "--sandbox-on-destroy", "pause", "--",
		"sh", "-c", "cat /tmp/prep.out; echo kept > f.txt; echo err >&2; exit 3")
	m := regexp.MustCompile(`zctx: sandbox (\S+) kept; pass --sandbox (\S+) to the next run`).FindStringSubmatch(errs)
	if code != 3 || out != "prepared\n" || m == nil || m[1] != m[2] {
		t.Fatalf("run: %d %q %q; want 3, the pregame's output, and the kept id", code, out, errs)
	}
	id := m[1]
	code, out, errs = zctx(t, "", "run", "--context", "e2b", "--sandbox", id, "--", "cat", "f.txt")
	if code != 0 || out != "kept\n" {
		t.Errorf("resume with --sandbox %s: %d %q %q", id, code, out, errs)
	}
	if got := s.Sandboxes(); len(got) != 1 || got[0].State != "running" {
		t.Errorf("an attached sandbox was killed or paused by zctx: %+v", got)
	}
	code, out, errs = zctx(t, "", "spawn", "--context", "e2b")
	var h struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &h) != nil {
		t.Fatalf("spawn: %d %q %q", code, out, errs)
	}
	if code, out, _ := zctx(t, "", "exec", h.ID, "--", "sh", "-c", "echo again"); code != 0 || out != "again\n" {
		t.Errorf("exec on the handle: %d %q", code, out)
	}
	zctx(t, "", "destroy", h.ID)
	state, _ := os.ReadFile(filepath.Join(os.Getenv("ZCTX_STATE_DIR"), h.ID+".json"))
	t.Setenv("E2B_API_KEY", "e2b_wrong_key_for_the_error_path_000")
	code, _, errs2 := zctx(t, "", "run", "--context", "e2b", "--", "true")
	if code != 127 || !strings.Contains(errs2, "401") {
		t.Errorf("wrong key: %d %q", code, errs2)
	}
	for _, text := range []string{out, errs, string(state), errs2} {
		if strings.Contains(text, key) || strings.Contains(text, "e2b_wrong_key") {
			t.Errorf("an API key was printed or stored: %q", text)
		}
	}
	if len(state) == 0 {
		t.Error("no state file to check")
	}
}

// zctx --context daytona against its replica: pause (stop) prints the
// id, --sandbox starts it again and leaves it, the key is never printed.
func TestDaytonaReplica(t *testing.T) {
	d, skip, err := dockertest.Start()
	if err != nil {
		t.Fatal(err)
	}
	if d == nil {
		t.Skip(skip)
	}
	defer d.Stop()
	runner, err := docker.New(contexts.Options{Host: d.Host, Image: dockertest.Image})
	if err != nil {
		t.Fatal(err)
	}
	const key = "dtn_zctx_secret_00112233445566778899"
	s := daytonatest.NewServer(daytonatest.Options{Runner: runner, APIKey: key})
	defer s.Close()
	setup(t)
	t.Setenv("DAYTONA_API_KEY", key)
	t.Setenv("DAYTONA_API_URL", s.APIURL())
	pre := filepath.Join(t.TempDir(), "prep.sh")
	os.WriteFile(pre, []byte("echo prepared > /tmp/prep.out\n"), 0o644)
	code, out, errs := zctx(t, "", "run", "--context", "daytona", "--pregame", pre, "--sandbox-on-destroy", "pause", "--",
		"sh", "-c", "cat /tmp/prep.out; echo kept > f.txt; echo err >&2; exit 3")
	m := regexp.MustCompile(`zctx: sandbox (\S+) kept`).FindStringSubmatch(errs)
	if code != 3 || out != "prepared\n" || m == nil {
		t.Fatalf("run: %d %q %q", code, out, errs)
	}
	if got := s.Sandboxes(); len(got) != 1 || got[0].State != "stopped" {
		t.Errorf("pause on daytona must stop: %+v", got)
	}
	code, out, errs2 := zctx(t, "", "run", "--context", "daytona", "--sandbox", m[1], "--", "cat", "f.txt")
	if code != 0 || out != "kept\n" {
		t.Errorf("--sandbox: %d %q %q", code, out, errs2)
	}
	if got := s.Sandboxes(); len(got) != 1 || got[0].State != "started" {
		t.Errorf("an attached sandbox was stopped or deleted: %+v", got)
	}
	for _, text := range []string{errs, errs2, out} {
		if strings.Contains(text, key) {
			t.Errorf("the key was printed: %q", text)
		}
	}
}
