//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// A missing protected path under a directory the caller can neither write
// nor chmod (a ~/.config that `sudo` once made root's) gets no
// placeholder: the command cannot create it there. But the home is the
// caller's, so the command could move that directory aside (or remove it
// when empty, or unlink it when it is a file) and make a fresh one in its
// place, owned by itself, holding git's global config: the host's next git
// then runs its fsmonitor. The directory must stay where it is.
func TestUncreatableProtectedStaysUncreatable(t *testing.T) {
	attacks := []struct {
		name, move string
		file       bool // the anchor is a file, not a directory
	}{
		{name: "rename", move: "mv .config .config.old"},
		{name: "rmdir", move: "rmdir .config"},
		{name: "unlink a file in the way", move: "rm -f .config", file: true},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			each(t, func(t *testing.T, e *env) {
				home := filepath.Join(e.base, "home2")
				e.mkdir(home)
				if err := os.Lchown(home, e.id.UID, e.id.GID); err != nil {
					t.Fatal(err)
				}
				cfg := filepath.Join(home, ".config")
				var err error
				if a.file {
					err = os.WriteFile(cfg, []byte("not a directory\n"), 0o644)
				} else {
					err = os.Mkdir(cfg, 0o755) // root's: the caller cannot write it
				}
				if err != nil {
					t.Fatal(err)
				}
				var before syscall.Stat_t
				if err := syscall.Lstat(cfg, &before); err != nil {
					t.Fatal(err)
				}
				marker := filepath.Join(e.outside, "fsmonitor-ran")
				plant := a.move + "; mkdir -p .config/git && " +
					"printf '[core]\\n\\tfsmonitor = touch " + marker + "\\n' > .config/git/config"
				cmd := e.command(home, "exec", "--", "sh", "-c", plant)
				cmd.Env = withHome(cmd.Env, home)
				r := e.collect(cmd)
				mustFail(t, r, "planting git's global config in a fresh ~/.config")

				// From outside: the directory is the one that was there,
				// no global config appeared, and the host's git (run as
				// the caller with this home) reads no fsmonitor.
				var after syscall.Stat_t
				if err := syscall.Lstat(cfg, &after); err != nil || after.Ino != before.Ino || after.Uid != 0 {
					t.Errorf("%s was moved or replaced on the host (%v)\n%s", cfg, err, r)
				}
				harness.MustNotExist(t, filepath.Join(cfg, "git", "config"))
				harness.MustNotExist(t, filepath.Join(home, ".config.old"))
				repo := filepath.Join(e.outside, "repo")
				e.mkdir(repo)
				git := exec.Command("git", "-C", repo, "init", "-q")
				git.Env = withHome(os.Environ(), home)
				if out, err := git.CombinedOutput(); err != nil {
					t.Fatalf("git init: %v\n%s", err, out)
				}
				git = exec.Command("git", "-C", repo, "status", "--short")
				git.Env = withHome(os.Environ(), home)
				git.CombinedOutput()
				harness.MustNotExist(t, marker)
			})
		})
	}
}

// withHome returns env with HOME set to home (and no XDG_CONFIG_HOME, so
// git looks in home).
func withHome(env []string, home string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+home)
}

// TestUnwritableOwnDirGetsPlaceholders (red team rt13): a ~/.config the
// caller owns but made read-only (chmod 555) is no anchor: the command
// could chmod it back and create git's global config, so explain says a
// placeholder keeps ~/.config/git from being created. exec could not make
// one there and refused to run at all (127). It must run, keep the plant
// out, and leave ~/.config as it found it.
func TestUnwritableOwnDirGetsPlaceholders(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		cfg := filepath.Join(e.home, ".config")
		if err := os.Chmod(cfg, 0o555); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, cfg)
		ex := e.runIn(e.home, nil, "explain")
		if !strings.Contains(ex.Stdout+ex.Stderr, filepath.Join(cfg, "git")+"  (home start-up, in "+e.home+"; does not exist; a placeholder keeps it from being created)") {
			t.Fatalf("explain does not say a placeholder keeps ~/.config/git\n%s", ex)
		}
		marker := filepath.Join(e.outside, "fsmonitor-ran")
		r := e.runIn(e.home, nil, "exec", "--", "sh", "-c", "echo ran; chmod u+w .config; mkdir -p .config/git && "+
			"printf '[core]\\n\\tfsmonitor = touch "+marker+"\\n' > .config/git/config")
		mustFail(t, r, "planting git's global config in a chmod-555 ~/.config")
		if !strings.Contains(r.Stdout, "ran") {
			t.Errorf("exec did not run what explain describes\n%s", r)
		}
		harness.MustNotExist(t, filepath.Join(cfg, "git", "config"))
		os.Chmod(cfg, 0o555) // the command's chmod stays, as it may
		assertSameTree(t, before, snapshot(t, cfg), "after the run")
		repo := filepath.Join(e.outside, "repo")
		e.mkdir(repo)
		for _, args := range [][]string{{"init", "-q"}, {"status", "--short"}} {
			git := exec.Command("git", append([]string{"-C", repo}, args...)...)
			git.Env = withHome(os.Environ(), e.home)
			git.CombinedOutput()
		}
		harness.MustNotExist(t, marker)
	})
}
