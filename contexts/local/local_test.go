//go:build linux

package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/conformance"
	"github.com/zsandbox/zsandbox/contexts/internal/dockertest"
)

var daemon *dockertest.Daemon

func TestMain(m *testing.M) {
	dockertest.Main(m, func(d *dockertest.Daemon, _ string) { daemon = d })
}

func needDocker(t *testing.T) {
	if daemon == nil {
		t.Skip("no private dockerd")
	}
}

// pathWith puts a `container` program first on PATH (and nothing else of
// Apple's): script "" means none at all. It returns the program's path.
func pathWith(t *testing.T, script string) string {
	dir := t.TempDir()
	cli := filepath.Join(dir, "container")
	if script != "" {
		os.WriteFile(cli, []byte("#!/bin/sh\n"+script+"\n"), 0o755)
	}
	t.Setenv("PATH", dir+":/usr/local/bin:/usr/bin:/bin")
	return cli
}

func runtimeOf(t *testing.T, o contexts.Options) (string, error) {
	c, _ := New(o)
	return c.Runtime(context.Background())
}

func TestRule(t *testing.T) {
	needDocker(t)
	shim, _ := filepath.Abs("../apple/testdata/container-shim.sh")
	t.Setenv("ZCTX_SHIM_DOCKER_HOST", daemon.Host)
	o := contexts.Options{Host: daemon.Host, Image: dockertest.Image}
	cases := []struct {
		name, script, want string
	}{
		{"apple answers and its service runs", `exec "` + shim + `" "$@"`, "apple"},
		{"no apple CLI", "", "docker"},
		{"apple service not running", `[ "$1" = --version ] && exit 0; echo "apiserver is not running" >&2; exit 1`, "docker"},
		{"apple CLI hangs past 3 s", `sleep 20`, "docker"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := o
			if cli := pathWith(t, c.script); c.script != "" {
				o.Extra = map[string]string{"container": cli}
			}
			got, err := runtimeOf(t, o)
			if err != nil || got != c.want {
				t.Errorf("runtime = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

// Attack: a `container` planted first on PATH by an earlier run (in a
// directory commands may write: node_modules/.bin, ~/bin, /tmp) that
// answers like Apple's: local would run every command through it, on the
// host. It is not taken (on Linux no PATH entry is; on macOS only a
// root-owned one outside home and the temporary directories), and it
// never ran.
func TestPlantedContainerCLI(t *testing.T) {
	needDocker(t)
	marker := filepath.Join(t.TempDir(), "fake-ran")
	pathWith(t, "touch "+marker+"; exit 0")
	got, err := runtimeOf(t, contexts.Options{Host: daemon.Host, Image: dockertest.Image})
	if err != nil || got != "docker" {
		t.Errorf("runtime = %q, %v; want docker", got, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the planted container CLI ran")
	}
}

// Neither runtime: every spawn is refused with both fixes named; nothing
// runs anywhere else.
func TestNoRuntimeRefuses(t *testing.T) {
	pathWith(t, "")
	c, _ := New(contexts.Options{Host: "unix://" + filepath.Join(t.TempDir(), "none.sock")})
	for i := 0; i < 2; i++ {
		_, err := c.Spawn(context.Background(), contexts.SpawnConfig{})
		if !errors.Is(err, contexts.ErrUnavailable) || contexts.ExitCode(err) != 127 {
			t.Fatalf("Spawn = %v, want ErrUnavailable (127)", err)
		}
		msg := err.Error() + contexts.Hint(err)
		for _, want := range []string{"no container runtime detected", "Docker", "container system start", "macOS 26"} {
			if !strings.Contains(msg, want) {
				t.Errorf("refusal %q lacks %q", msg, want)
			}
		}
	}
}

func TestConformance(t *testing.T) {
	needDocker(t)
	pathWith(t, "")
	conformance.Run(t, func(t *testing.T) conformance.Target {
		c, _ := New(contexts.Options{Host: daemon.Host, Image: dockertest.Image, Mounts: []contexts.Mount{{Source: t.TempDir(), Target: "/workspace"}}})
		return conformance.Target{Context: c}
	})
}

// The session's handle survives across programs: Attach goes back to the
// runtime that made it, and the workspace is the host directory.
func TestAttachAndWorkspace(t *testing.T) {
	needDocker(t)
	pathWith(t, "")
	work := t.TempDir()
	t.Chdir(work)
	o := contexts.Options{Host: daemon.Host, Image: dockertest.Image}
	c, _ := New(o)
	h, err := c.Spawn(context.Background(), contexts.SpawnConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Destroy(context.Background())
	st := h.State()
	if st.Kind != Kind || st.Extra["runtime"] != "docker" {
		t.Fatalf("state = %+v", st)
	}
	again, err := New(o)
	h2, err := again.Attach(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := h2.Exec(context.Background(), contexts.Cmd{Shell: "pwd; echo hi > from-container"}); err != nil || string(r.Stdout) != "/workspace\n" {
		t.Errorf("exec: %q %v", r.Stdout, err)
	}
	if b, err := os.ReadFile(filepath.Join(work, "from-container")); err != nil || string(b) != "hi\n" {
		t.Errorf("the host workspace lacks the file: %q %v", b, err)
	}
}
