package e2e

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// repo makes a git repository with one commit in the project dir.
func repo(t *testing.T, e *env) string {
	t.Helper()
	git(t, e.proj, "init", "-q")
	git(t, e.proj, "commit", "-q", "--allow-empty", "-m", "init")
	e.chownAll()
	return filepath.Join(e.proj, ".git")
}

// snapshot records the names (recursively) under dir, to spot strays.
func snapshot(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			out[p] = true
		}
		return nil
	})
	return out
}

func assertSameTree(t *testing.T, before, after map[string]bool, what string) {
	t.Helper()
	for p := range after {
		if !before[p] {
			t.Errorf("%s: %s appeared on the host", what, p)
		}
	}
	for p := range before {
		if !after[p] {
			t.Errorf("%s: %s vanished from the host", what, p)
		}
	}
}

// TestGitHooksProtected plants a hook every way we know.
func TestGitHooksProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		gitDir := repo(t, e)
		hook := filepath.Join(gitDir, "hooks", "post-commit")
		attacks := map[string]string{
			"direct":           "echo evil > .git/hooks/post-commit; chmod +x .git/hooks/post-commit",
			"rename hooks":     "mv .git/hooks .git/hooks.old; mkdir .git/hooks; echo evil > .git/hooks/post-commit",
			"rename .git":      "mv .git .git.old; mkdir -p .git/hooks; echo evil > .git/hooks/post-commit",
			"delete hooks":     "rm -rf .git/hooks; mkdir .git/hooks; echo evil > .git/hooks/post-commit",
			"symlink swap":     "rm -rf .git/hooks; ln -s " + e.tmp + " .git/hooks; echo evil > .git/hooks/post-commit",
			"rename into":      "echo evil > .git/x; mv .git/x .git/hooks/post-commit",
			"hooksPath config": "git config core.hooksPath " + e.tmp,
		}
		before := snapshot(t, e.proj)
		config, _ := os.ReadFile(filepath.Join(gitDir, "config"))
		for name, script := range attacks {
			e.sh(script)
			harness.MustNotExist(t, hook)
			harness.MustNotExist(t, filepath.Join(gitDir, "hooks.old"))
			harness.MustNotExist(t, filepath.Join(e.proj, ".git.old"))
			if fi, err := os.Lstat(filepath.Join(gitDir, "hooks")); err != nil || !fi.IsDir() {
				t.Errorf("%s: .git/hooks is no longer a directory on the host (%v)", name, err)
			}
			harness.MustContain(t, filepath.Join(gitDir, "config"), string(config))
			os.Remove(filepath.Join(gitDir, "x"))
			os.Remove(filepath.Join(e.proj, "x"))
		}
		assertSameTree(t, before, snapshot(t, e.proj), "after the hook attacks")
	})
}

// TestMissingHooksDirProtected: the repository has no hooks directory at
// start; the command must not be able to create one, and nothing is left
// behind on the host afterwards.
func TestMissingHooksDirProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		gitDir := repo(t, e)
		os.RemoveAll(filepath.Join(gitDir, "hooks"))
		before := snapshot(t, e.proj)
		r := e.sh("mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit")
		mustFail(t, r, "create missing hooks")
		harness.MustNotExist(t, filepath.Join(gitDir, "hooks"))
		mustSucceed(t, e.sh("echo hi > f && git add f && "+sandboxCommit), "commit with placeholder hooks")
		harness.MustNotExist(t, filepath.Join(gitDir, "hooks"))
		after := snapshot(t, e.proj)
		delete(after, filepath.Join(e.proj, "f"))
		for p := range after {
			if !before[p] && !strings.HasPrefix(p, filepath.Join(gitDir, "objects")) &&
				!strings.HasPrefix(p, filepath.Join(gitDir, "logs")) && !strings.HasPrefix(p, filepath.Join(gitDir, "refs")) &&
				p != filepath.Join(gitDir, "index") && p != filepath.Join(gitDir, "COMMIT_EDITMSG") {
				t.Errorf("stray on the host after the run: %s", p)
			}
		}
	})
}

// TestGitConfigProtected: .git/config cannot be changed in any way.
func TestGitConfigProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		gitDir := repo(t, e)
		cfg := filepath.Join(gitDir, "config")
		want, _ := os.ReadFile(cfg)
		for _, script := range []string{
			"echo '[core] fsmonitor = evil' >> .git/config",
			"printf '[core]\\n\\tpager = evil\\n' > new && cp new .git/config",
			"mv .git/config .git/config.old; echo evil > .git/config",
			"git config core.fsmonitor 'sh -c evil'",
			"git config core.pager evil",
		} {
			e.sh(script)
			harness.MustContain(t, cfg, string(want))
			harness.MustNotExist(t, cfg+".old")
		}
	})
}

// TestGitStillWorks: only the protected entries are read-only.
func TestGitStillWorks(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		repo(t, e)
		r := e.sh("set -e\n" + gitWorkflow)
		mustSucceed(t, r, "git workflow")
		if strings.TrimSpace(r.Stdout) != "4" {
			t.Errorf("git log after rebase: %q, want 4 commits\n%s", r.Stdout, r)
		}
	})
}

// TestExplicitWritableBeatsProtection: naming the path opts in.
func TestExplicitWritableBeatsProtection(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		gitDir := repo(t, e)
		r := e.sh("echo ok > .git/hooks/pre-commit", "--writable", filepath.Join(gitDir, "hooks"))
		mustSucceed(t, r, "write hook with --writable .git/hooks")
		harness.MustContain(t, filepath.Join(gitDir, "hooks", "pre-commit"), "ok\n")
	})
}

// TestWorktreeProtected: a linked worktree's pointer file and the common
// dir's hooks and config are protected.
func TestWorktreeProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		gitDir := repo(t, e)
		wt := filepath.Join(e.home, "wt")
		git(t, e.proj, "worktree", "add", "-q", wt)
		e.chownAll()
		pointer, _ := os.ReadFile(filepath.Join(wt, ".git"))
		config, _ := os.ReadFile(filepath.Join(gitDir, "config"))
		for _, script := range []string{
			"echo 'gitdir: " + e.tmp + "' > .git",
			"mv .git .git.old; echo 'gitdir: " + e.tmp + "' > .git",
			"echo evil > " + gitDir + "/hooks/post-commit",
			"git config core.hooksPath " + e.tmp,
		} {
			e.runIn(wt, nil, "exec", "--", "sh", "-c", script)
		}
		harness.MustContain(t, filepath.Join(wt, ".git"), string(pointer))
		harness.MustContain(t, filepath.Join(gitDir, "config"), string(config))
		harness.MustNotExist(t, filepath.Join(gitDir, "hooks", "post-commit"))
		harness.MustNotExist(t, filepath.Join(wt, ".git.old"))
	})
}

// TestHomeStartupFilesProtected: with cwd = home, rc files and .gitconfig
// cannot be changed or created, and no placeholder is left behind.
func TestHomeStartupFilesProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.write(filepath.Join(e.home, ".bashrc"), "# rc\n")
		e.chownAll()
		before := snapshot(t, e.home)
		for _, script := range []string{
			"echo evil >> .bashrc",
			"mv .bashrc .bashrc.old; echo evil > .bashrc",
			"echo evil > .zshenv",
			"echo evil > .profile",
			"printf '[core]\\n\\tpager = evil\\n' >> .gitconfig",
			"mkdir -p .config/git && echo evil > .config/git/config",
			"mv .config .config.old; mkdir -p .config/git; echo evil > .config/git/config",
			"git config --global core.pager evil",
		} {
			e.runIn(e.home, nil, "exec", "--", "sh", "-c", script)
		}
		harness.MustContain(t, filepath.Join(e.home, ".bashrc"), "# rc\n")
		assertSameTree(t, before, snapshot(t, e.home), "after the rc attacks")
		mustSucceed(t, e.runIn(e.home, nil, "exec", "--", "sh", "-c", "echo ok > notes.txt"), "ordinary write in home")
		harness.MustContain(t, filepath.Join(e.home, "notes.txt"), "ok\n")
	})
}

// TestPlaceholdersRemovedWhenKilled: SIGKILL of zsandbox while placeholders
// are mounted still leaves the host clean.
func TestPlaceholdersRemovedWhenKilled(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		zshenv := filepath.Join(e.home, ".zshenv")
		cmd := e.command(e.home, "exec", "--", "sh", "-c", "echo ready; sleep 300")
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out).ReadString('\n')
		if _, err := os.Lstat(zshenv); err != nil {
			t.Fatalf("expected a placeholder for .zshenv during the run: %v", err)
		}
		cmd.Process.Kill()
		cmd.Wait()
		if !waitFor(5*time.Second, func() bool { _, err := os.Lstat(zshenv); return err != nil }) {
			t.Errorf("placeholder %s left behind after SIGKILL", zshenv)
		}
	})
}

// TestMissingHiddenPathsCannotBeCreated: with cwd = home and no ~/.ssh, the
// command cannot plant ~/.ssh/authorized_keys, nor write a settings file
// that would widen its next sandbox.
func TestMissingHiddenPathsCannotBeCreated(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		os.RemoveAll(filepath.Join(e.home, ".ssh"))
		os.RemoveAll(filepath.Join(e.home, ".config", "zsandbox"))
		before := snapshot(t, e.home)
		for _, script := range []string{
			"mkdir -p .ssh && echo key >> .ssh/authorized_keys",
			"mkdir -p .config/zsandbox && echo '{\"writable\":[\"/\"]}' > .config/zsandbox/settings.json",
		} {
			mustFail(t, e.runIn(e.home, nil, "exec", "--", "sh", "-c", script), script)
		}
		assertSameTree(t, before, snapshot(t, e.home), "after planting attempts")
	})
}

// TestHiddenCannotBeMovedAside: the directories above a hidden path inside
// a writable root are pinned, so the command cannot carry a masked secret
// to a name the next run does not mask (mv ~/.docker ~/d, then read
// ~/d/config.json).
func TestHiddenCannotBeMovedAside(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		deep := filepath.Join(e.proj, "conf", "deep")
		e.mkdir(deep)
		e.write(filepath.Join(deep, "token"), e.secret+"\n")
		e.chownAll()
		for _, step := range [][]string{
			{e.home, "mv .docker moved-docker"},
			{e.home, "cat moved-docker/config.json"},
			{e.proj, "mv conf conf2 || mv conf/deep conf/deep2"},
			{e.proj, "cat conf2/deep/token conf/deep2/token"},
		} {
			r := e.runIn(step[0], nil, "exec", "--hide", filepath.Join(deep, "token"), "--", "sh", "-c", step[1])
			mustFail(t, r, step[1])
			assertNoSecret(t, e, r, step[1])
		}
		harness.MustContain(t, filepath.Join(e.home, ".docker", "config.json"), e.secret+"\n")
		harness.MustContain(t, filepath.Join(deep, "token"), e.secret+"\n")
		harness.MustNotExist(t, filepath.Join(e.home, "moved-docker"))
	})
}

// TestPlaceholdersRemovedAfterChmod: a command that takes write permission
// away from the home it may write (chmod 555 ~) still leaves no
// placeholder behind.
func TestPlaceholdersRemovedAfterChmod(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		before := snapshot(t, e.home)
		r := e.runIn(e.home, nil, "exec", "--", "chmod", "555", e.home)
		mustSucceed(t, r, "chmod 555 ~")
		after := snapshot(t, e.home)
		os.Chmod(e.home, 0o755)
		assertSameTree(t, before, after, "after chmod 555 ~")
		if strings.Contains(r.Stderr, "could not remove") {
			t.Errorf("the guard warned about leftovers:\n%s", r)
		}
	})
}

// TestConcurrentRunsSharePlaceholders: while one run holds placeholders
// for missing hidden paths (cwd = home, no ~/.ssh, no settings file), a
// second run must not be able to create them when the first one ends and
// removes its placeholders, must start at all (a placeholder file where
// the settings directory would be is no settings), and nothing is left.
func TestConcurrentRunsSharePlaceholders(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		os.RemoveAll(filepath.Join(e.home, ".ssh"))
		os.RemoveAll(filepath.Join(e.home, ".config", "zsandbox"))
		before := snapshot(t, e.home)
		first := e.command(e.home, "exec", "--", "sh", "-c", "echo ready; sleep 1")
		out, _ := first.StdoutPipe()
		if err := first.Start(); err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out).ReadString('\n')
		mustSucceed(t, e.runIn(e.home, nil, "exec", "--", "true"), "a second run while the first holds placeholders")
		second := e.runIn(e.home, nil, "exec", "--", "sh", "-c",
			"sleep 2; mkdir -p .ssh && echo key >> .ssh/authorized_keys; mkdir -p .config/zsandbox && echo '{}' > .config/zsandbox/settings.json")
		first.Wait()
		mustFail(t, second, "planting after the first run ended")
		// The first run's guard removes the directories it made once the
		// second run lets go of the placeholders in them: shortly after.
		waitFor(3*time.Second, func() bool { return len(snapshot(t, e.home)) == len(before) })
		assertSameTree(t, before, snapshot(t, e.home), "after two concurrent runs")
	})
}

// TestKernelTreesNotWritable: a writable root of / or under /proc, /sys,
// /dev would uncover the host's kernel interfaces; it is a usage error.
func TestKernelTreesNotWritable(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, root := range []string{"/", "/proc", "/proc/sys", "/sys", "/dev"} {
			r := e.run("exec", "--writable", root, "--", "true")
			if r.Code != 2 || !strings.HasPrefix(r.Stderr, "zsandbox: error: writable root") {
				t.Errorf("--writable %s: want exit 2 with an error\n%s", root, r)
			}
		}
		mustSucceed(t, e.run("exec", "--writable", "/dev/shm", "--", "true"), "--writable /dev/shm")
	})
}

// TestNestedRootRenameAside: with the working directory inside another
// writable root (--writable of a parent, or /tmp), renaming a directory
// above the working directory must not carry the protected repository away
// so that a fake one with a hook takes its place.
func TestNestedRootRenameAside(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		outer := filepath.Join(e.base, "w")
		repoDir := filepath.Join(outer, "x", "a")
		e.mkdir(repoDir)
		git(t, repoDir, "init", "-q")
		git(t, repoDir, "commit", "-q", "--allow-empty", "-m", "init")
		e.chownAll()
		script := "mv " + filepath.Join(outer, "x") + " " + filepath.Join(outer, "x.moved") +
			"; mkdir -p " + repoDir + " && git init -q " + repoDir +
			" && echo evil > " + repoDir + "/.git/hooks/pre-commit"
		r := e.runIn(repoDir, nil, "exec", "--writable", outer, "--", "sh", "-c", script)
		mustFail(t, r, "rename the repository's parent aside and plant a hook")
		harness.MustNotExist(t, filepath.Join(outer, "x.moved"))
		harness.MustNotExist(t, filepath.Join(repoDir, ".git", "hooks", "pre-commit"))
	})
}
