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
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

// privateDocker starts a private dockerd for the test (or skips).
func privateDocker(t *testing.T) *dockertest.Daemon {
	t.Helper()
	d, skip, err := dockertest.Start()
	if err != nil {
		t.Fatal(err)
	}
	if d == nil {
		t.Skip(skip)
	}
	t.Cleanup(d.Stop)
	return d
}

func dockerRunner(t *testing.T, d *dockertest.Daemon) contexts.Context {
	t.Helper()
	runner, err := docker.New(contexts.Options{Host: d.Host, Image: dockertest.Image})
	if err != nil {
		t.Fatal(err)
	}
	return runner
}

// zctx --context e2b against the replica: pause prints the id, --sandbox
// resumes it, --pregame runs first, and the API key appears in no output,
// handle JSON or state file.
func TestE2BReplica(t *testing.T) {
	runner := remotetest.WithSetup(dockerRunner(t, privateDocker(t)), remotetest.FakeGit)
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
	t.Setenv("E2B_API_KEY", key)
	repoFlag(t)
	sandboxFlag(t, s)
}

// repoFlag: --repo clones with GH_TOKEN's token, which is in no output,
// handle JSON or state file, and left in the sandbox only with
// --store-git-token; a failing clone's error does not quote it.
func repoFlag(t *testing.T) {
	const tok = "ghp_zctx_clone_token_0123456789abcdef"
	t.Setenv("GH_TOKEN", tok)
	repo := []string{"--context", "e2b", "--repo", "https://github.com/acme/app.git"}
	for _, store := range []bool{false, true} {
		args := append([]string{"spawn"}, repo...)
		if store {
			args = append(args, "--store-git-token")
		}
		code, out, errs := zctx(t, "", args...)
		var h struct{ ID, Cwd string }
		if code != 0 || json.Unmarshal([]byte(out), &h) != nil || !strings.HasSuffix(h.Cwd, "/app") {
			t.Fatalf("spawn --repo: %d %q %q; want a handle working in the clone", code, out, errs)
		}
		_, creds, _ := zctx(t, "", "exec", h.ID, "--", "sh", "-c", "cat ~/.git-credentials 2>/dev/null; grep -c -F 'argv: [clone]' /git-calls")
		if strings.Contains(creds, tok) != store || !strings.HasSuffix(creds, "1\n") {
			t.Errorf("--store-git-token=%v: ~/.git-credentials and git's calls: %q", store, creds)
		}
		state, err := os.ReadFile(filepath.Join(os.Getenv("ZCTX_STATE_DIR"), h.ID+".json"))
		zctx(t, "", "destroy", h.ID)
		if err != nil || strings.Contains(string(state)+out+errs, tok) {
			t.Errorf("the clone token was printed or stored (%v): %q %q %q", err, out, errs, state)
		}
	}
	code, _, errs := zctx(t, "", append(append([]string{"run"}, repo...), "--env", "FAKE_GIT_FAIL=1", "--", "true")...)
	if code != 127 || !strings.Contains(errs, "zctx: error:") || !strings.Contains(errs, "exited 128") || strings.Contains(errs, tok) {
		t.Errorf("failing clone: %d %q; want 127 and an error without the token", code, errs)
	}
	// Attack: a --repo with a token in it that does not parse (a bad
	// escape) was quoted whole in the error.
	code, _, errs = zctx(t, "", "run", "--context", "e2b", "--repo", "https://x-access-token:"+tok+"@github.com/acme/%zz", "--", "true")
	if code != 2 || !strings.Contains(errs, "zctx: error:") || strings.Contains(errs, tok) {
		t.Errorf("--repo with a token and a bad escape: %d %q; want 2 and an error without the token", code, errs)
	}
}

// zctx --context daytona against its replica: pause (stop) prints the
// id, --sandbox starts it again and leaves it, the key is never printed.
func TestDaytonaReplica(t *testing.T) {
	runner := dockerRunner(t, privateDocker(t))
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
