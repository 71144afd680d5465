//go:build linux

package docker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
)

// Attack across two runs: the first container (workspace bind-mounted)
// makes workspace/data a symlink to a host directory outside it (inside
// the container it points nowhere); the next spawn with
// `--mount WORK/data:/data` would have the daemon follow it on the host
// and bind that directory writable. Checked on the host: the file outside
// is unchanged, and nothing was spawned.
func TestPlantedSymlinkMountSource(t *testing.T) {
	needDocker(t)
	_, work, outside := hostDirs(t)
	target := filepath.Join(outside, "target")
	os.WriteFile(target, []byte("orig"), 0o644)
	o := testOptions()
	o.Mounts = []contexts.Mount{{Source: work, Target: "/workspace"}}
	first := spawnT(t, o, contexts.SpawnConfig{})
	r, err := first.Exec(context.Background(), contexts.Cmd{Args: []string{"sh", "-c", `ln -s "$1" /workspace/data && ln -s . /workspace/here && echo ran`, "sh", outside}})
	if err != nil || !strings.Contains(string(r.Stdout), "ran") {
		t.Fatalf("the planting run did not run: %v %q %q", err, r.Stdout, r.Stderr)
	}
	for _, src := range []string{filepath.Join(work, "data"), filepath.Join(work, "here", "data")} {
		o := testOptions()
		o.Mounts = []contexts.Mount{{Source: src, Target: "/data"}}
		h, err := newContext(t, o).Spawn(context.Background(), contexts.SpawnConfig{})
		if err == nil {
			h.Exec(context.Background(), contexts.Cmd{Shell: "echo owned > /data/target"})
			h.Destroy(context.Background())
		}
		if !errors.Is(err, contexts.ErrDenied) || !strings.Contains(contexts.Hint(err), outside) {
			t.Errorf("Spawn with mount source %s = %v (hint %q), want ErrDenied naming the real directory", src, err, contexts.Hint(err))
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "orig" {
		t.Fatalf("the host file outside the workspace was written through the mount: %q", b)
	}
	// The system's own links (/var/run -> /run) are still followed, and a
	// symlink-free path is the one the daemon gets.
	if fi, err := os.Lstat("/var/run"); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		got, err := contexts.CheckMounts([]contexts.Mount{{Source: "/var/run"}}, nil)
		if want, _ := filepath.EvalSymlinks("/var/run"); err != nil || got[0].Source != want {
			t.Errorf("CheckMounts(/var/run) = %v, %v; want %s", got, err, want)
		}
	}
}

// Attack: a container whose workspace holds zctx's state directory
// (local's default mounts the cwd, and the cwd may be $HOME) rewrites a
// handle's record to the process context with isolation off: the next
// `zctx exec` would run on the host, unsandboxed. A mount that exposes a
// hidden path (zctx hides its state dir) is refused; nothing is spawned.
func TestMountExposingHiddenPath(t *testing.T) {
	needDocker(t)
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state", "zctx")
	os.MkdirAll(state, 0o700)
	for _, src := range []string{home, state, filepath.Join(state, "..")} {
		o := testOptions()
		o.Hide = []string{state}
		o.Mounts = []contexts.Mount{{Source: src, Target: "/workspace"}}
		h, err := newContext(t, o).Spawn(context.Background(), contexts.SpawnConfig{})
		if err == nil {
			h.Exec(context.Background(), contexts.Cmd{Shell: "echo '{}' > /workspace/.local/state/zctx/planted.json; echo '{}' > /workspace/planted.json"})
			h.Destroy(context.Background())
		}
		if !errors.Is(err, contexts.ErrDenied) {
			t.Errorf("Spawn mounting %s = %v, want ErrDenied", src, err)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(state, "*")); len(names) > 0 {
		t.Errorf("the container wrote into the state directory: %q", names)
	}
	// The state reached through a symlink an earlier run made
	// (~/.local/state -> elsewhere): the real place is what counts.
	elsewhere := t.TempDir()
	os.MkdirAll(filepath.Join(elsewhere, "zctx"), 0o700)
	home2 := t.TempDir()
	os.MkdirAll(filepath.Join(home2, ".local"), 0o755)
	os.Symlink(elsewhere, filepath.Join(home2, ".local", "state"))
	o := testOptions()
	o.Hide = []string{filepath.Join(home2, ".local", "state", "zctx")}
	o.Mounts = []contexts.Mount{{Source: elsewhere, Target: "/workspace"}}
	if h, err := newContext(t, o).Spawn(context.Background(), contexts.SpawnConfig{}); !errors.Is(err, contexts.ErrDenied) {
		if err == nil {
			h.Destroy(context.Background())
		}
		t.Errorf("Spawn mounting the real place of the hidden state = %v, want ErrDenied", err)
	}
	if left := labelled(t); len(left) > 0 {
		t.Errorf("left behind: %q", left)
	}
}

// Attack: a mount that holds the daemon's socket without naming it (its
// run directory, /run): the container would reach the daemon, root on the
// host. Refused; mounting the socket itself (the explicit opt-in) works.
func TestMountHoldingTheDaemonSocket(t *testing.T) {
	needDocker(t)
	sock := strings.TrimPrefix(testOptions().Host, "unix://")
	o := testOptions()
	o.Mounts = []contexts.Mount{{Source: filepath.Dir(sock), Target: "/host-run"}}
	h, err := newContext(t, o).Spawn(context.Background(), contexts.SpawnConfig{})
	if err == nil {
		r, _ := h.Exec(context.Background(), contexts.Cmd{Shell: "ls -l /host-run/" + filepath.Base(sock)})
		h.Destroy(context.Background())
		t.Fatalf("Spawn mounting the socket's directory succeeded: %q", r.Stdout)
	}
	if !errors.Is(err, contexts.ErrDenied) || !strings.Contains(err.Error(), "socket") {
		t.Errorf("Spawn = %v, want ErrDenied naming the socket", err)
	}
	o.Mounts = []contexts.Mount{{Source: sock, Target: "/var/run/docker.sock"}}
	h = spawnT(t, o, contexts.SpawnConfig{})
	if r, _ := h.Exec(context.Background(), contexts.Cmd{Shell: "test -S /var/run/docker.sock && echo socket"}); string(r.Stdout) != "socket\n" {
		t.Errorf("the socket mounted on purpose: %q %q", r.Stdout, r.Stderr)
	}
	if left := labelled(t); len(left) != 1 {
		t.Errorf("containers: %q, want the one handle", left)
	}
}
