package e2e

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// TestSiblingWorktreeAdminProtected: from the main worktree, a command
// rewrites another linked worktree's admin files (.git/worktrees/<id>/
// commondir pointing at a fake common dir whose config sets
// core.fsmonitor; config.worktree, read there when
// extensions.worktreeConfig is on), or renames the admin dir aside and
// makes a new one. The user's next git status in that worktree, on the
// host, would run the fake's fsmonitor. They are protected: the files are
// unchanged and git in the other worktree runs nothing; git worktree add
// from the main worktree keeps working.
func TestSiblingWorktreeAdminProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		gitDir := repo(t, e)
		git(t, e.proj, "config", "extensions.worktreeConfig", "true")
		wt := filepath.Join(e.home, "wt")
		git(t, e.proj, "worktree", "add", "-q", wt)
		e.chownAll()
		admin := filepath.Join(gitDir, "worktrees", "wt")
		commondir, _ := os.ReadFile(filepath.Join(admin, "commondir"))
		gitdir, _ := os.ReadFile(filepath.Join(admin, "gitdir"))
		script := strings.Join([]string{
			`M=` + e.markerPrefix(),
			`fs() { printf '[core]\n\tfsmonitor = "touch %s-%s; false"\n' "$M" "$1"; }`,
			`A=.git/worktrees/wt`,
			`cp -r .git "$TMPDIR/evil"; fs commondir >> "$TMPDIR/evil/config"`,
			`echo "$TMPDIR/evil" > $A/commondir`,
			`fs config-worktree > $A/config.worktree`,
			`echo "$TMPDIR/evil/worktrees/wt/gitdir" > $A/gitdir`,
			`mv $A .git/worktrees/old && mkdir $A && cp -r .git/worktrees/old/. $A/ && echo "$TMPDIR/evil" > $A/commondir`,
			`mv .git/worktrees .git/wt-old && mkdir -p $A && cp -r .git/wt-old/wt/. $A/ && echo "$TMPDIR/evil" > $A/commondir`,
			`true`,
		}, "\n")
		mustSucceed(t, e.sh(script), "run 1")
		harness.MustContain(t, filepath.Join(admin, "commondir"), string(commondir))
		harness.MustContain(t, filepath.Join(admin, "gitdir"), string(gitdir))
		harness.MustNotExist(t, filepath.Join(admin, "config.worktree"))
		mustSucceed(t, e.hostRun(wt, nil, "git", "status", "--porcelain"), "git status in the other worktree")
		assertNothingRan(t, e, "git in the other worktree after the run")

		wt2 := filepath.Join(e.proj, "wt2")
		mustSucceed(t, e.sh("git worktree add -q wt2 && echo hi > wt2/f"), "git worktree add from the main worktree")
		harness.MustContain(t, filepath.Join(wt2, "f"), "hi\n")
	})
}

// TestNamedRootProjectConfigProtected: the user names another checkout
// (no repository) with --writable; a command plants an agent hook
// (.claude/settings.json), an MCP server list, editor tasks and an .envrc
// at its top, which the agent or editor run there next, outside any
// sandbox. They cannot be created, and ordinary files there stay
// writable.
func TestNamedRootProjectConfigProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		other := filepath.Join(e.base, "other")
		e.mkdir(other)
		e.chownAll()
		before := snapshot(t, other)
		script := strings.Join([]string{
			`cd ` + other,
			`mkdir -p .claude && echo '{"hooks":{}}' > .claude/settings.json`,
			`echo '{"mcpServers":{}}' > .mcp.json`,
			`mkdir -p .vscode && echo '{}' > .vscode/tasks.json`,
			`echo "touch ` + e.markerPrefix() + `-envrc" > .envrc`,
			`mv .claude .c; mkdir .c2 && mv .c2 .claude; rmdir .c2`,
			`true`,
		}, "\n")
		mustSucceed(t, e.sh(script, "--writable", other), "run 1")
		assertSameTree(t, before, snapshot(t, other), "the named root after the project-config attacks")
		mustSucceed(t, e.sh("echo ok > "+other+"/f", "--writable", other), "an ordinary file in the named root")
		harness.MustContain(t, filepath.Join(other, "f"), "ok\n")
	})
}

// TestFakeGitDirsDoNotPushOutRealOnes: run 1 fills .git/modules with fake
// submodule git dirs that sort before the real one (zsandbox examined only
// the first 64, silently), run 2 then plants core.fsmonitor in the real
// submodule's config, which the superproject's git status on the host
// runs. Now every git dir is protected, and beyond the limit (also in
// .git/worktrees) the run refuses (127) naming the directory.
func TestFakeGitDirsDoNotPushOutRealOnes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		superRepo(t, e)
		fakes := func(dir string, n int) string {
			return `for i in $(seq 1000 ` + fmt.Sprint(1000+n) + `); do d=` + dir + `/a$i; mkdir -p $d/objects $d/refs; echo "ref: refs/heads/x" > $d/HEAD; done`
		}
		mustSucceed(t, e.sh(fakes(".git/modules", 80)), "run 1 plants fake submodule dirs")
		e.sh(`git -C sub config core.fsmonitor "touch ` + e.markerPrefix() + `-sub; false"; printf '[core]\n\tfsmonitor = "touch %s; false"\n' ` + e.markerPrefix() + `-sub2 >> .git/modules/sub/config`)
		mustSucceed(t, e.hostRun(e.proj, nil, "git", "status", "--porcelain"), "git status in the superproject")
		assertNothingRan(t, e, "git status on the host")

		for _, dir := range []string{".git/modules", ".git/worktrees"} {
			mustSucceed(t, e.sh(fakes(dir, 300)), "plant many in "+dir)
			mustRefuse(t, e.sh("true"), filepath.Join(e.proj, dir), "run 2 with too many in "+dir)
			os.RemoveAll(filepath.Join(e.proj, dir))
		}
	})
}

// TestSharedModeRepositoryProtected: a repository whose top others may
// write (a CI workspace made mode 777, a checkout group-writable by a team
// group) is the caller's own, and git uses it; zsandbox took it for a
// stray .git and protected nothing in it, so a planted pre-commit hook ran
// at the user's next commit on the host. Its git files are protected, as
// the cwd and as a --writable root.
func TestSharedModeRepositoryProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		gitDir := repo(t, e)
		other := filepath.Join(e.base, "other")
		e.mkdir(other)
		git(t, other, "init", "-q")
		e.chownAll()
		os.Chmod(e.proj, 0o777)
		os.Chown(other, e.id.UID, 4) // group adm: not the caller's
		os.Chmod(other, 0o775)
		hook := func(dir, name string) string {
			return `printf '#!/bin/sh\ntouch %s\n' ` + e.markerPrefix() + `-` + name + ` > ` + dir + `/.git/hooks/pre-commit; chmod +x ` + dir + `/.git/hooks/pre-commit`
		}
		e.sh(hook(e.proj, "cwd")+"; "+hook(other, "named")+"; echo x > "+filepath.Join(gitDir, "config"), "--writable", other)
		for _, dir := range []string{e.proj, other} {
			mustSucceed(t, e.hostRun(dir, nil, "git", "commit", "-q", "--allow-empty", "-m", "host"), "host commit in "+dir)
		}
		assertNothingRan(t, e, "git commit on the host")
		mustSucceed(t, e.sh("git add -A && "+sandboxCommit), "a commit in the sandbox")
	})
}

// TestSubmoduleRunBesideSuperprojectRun: while a run in the superproject
// holds the placeholder of the submodule's missing commondir (".", git's
// "no common dir"), a run in the submodule took it for a linked
// worktree's commondir, found no back-pointer and left the submodule's
// git dir read-only: its commit failed. A commondir naming the git dir
// itself is none.
func TestSubmoduleRunBesideSuperprojectRun(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		superRepo(t, e)
		release := filepath.Join(e.tmp, "release")
		first := e.command(e.proj, "exec", "--", "sh", "-c", "echo ready; while [ ! -e "+release+" ]; do sleep 0.05; done")
		out, _ := first.StdoutPipe()
		if err := first.Start(); err != nil {
			t.Fatal(err)
		}
		defer first.Wait()
		defer os.WriteFile(release, nil, 0o644)
		bufio.NewReader(out).ReadString('\n')
		if b, err := os.ReadFile(filepath.Join(e.proj, ".git", "modules", "sub", "commondir")); err != nil || string(b) != ".\n" {
			t.Fatalf("the superproject run holds no commondir placeholder in the submodule: %q %v", b, err)
		}
		r := e.runIn(filepath.Join(e.proj, "sub"), nil, "exec", "--", "sh", "-c", sandboxCommit)
		mustSucceed(t, r, "a commit in the submodule while the superproject run is on")
	})
}

// TestStrayGitInTmpdirDoesNotBreakRuns: run 1 makes a .git in $TMPDIR (a
// shared root every run writes) whose hooks is a symlink; every later run
// with that TMPDIR refused (a protected path that is a symlink). A .git
// at the top of a shared root counts for nothing: run 2 runs.
func TestStrayGitInTmpdirDoesNotBreakRuns(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		mustSucceed(t, e.sh(`git init -q "$TMPDIR" && rm -rf "$TMPDIR/.git/hooks" && ln -s /etc "$TMPDIR/.git/hooks"`), "run 1 plants $TMPDIR/.git")
		mustSucceed(t, e.sh("echo ok > f"), "run 2")
		harness.MustContain(t, filepath.Join(e.proj, "f"), "ok\n")
	})
}

// TestOversizedPolicyLeavesNothing: thousands of named roots, each a
// project top with its config placeholders, are more than bwrap accepts;
// the placeholders were made first, the guard could not start to remove
// them, and they stayed in every root. The size is checked before any
// placeholder is made: exit 2 and nothing left. explain printed the plan
// as if exec would run it (red team rt13): it says exec refuses it.
func TestOversizedPolicyLeavesNothing(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		args := []string{"exec"}
		many := filepath.Join(e.base, "many")
		for i := 0; i < 2300; i++ {
			d := filepath.Join(many, fmt.Sprint(i))
			e.mkdir(d)
			args = append(args, "--writable", d)
		}
		e.chownAll()
		before, proj := snapshot(t, many), snapshot(t, e.proj)
		r := e.run(append(args, "--", "true")...)
		if r.Code != 2 || !strings.Contains(r.Stderr, "more than bubblewrap accepts") || strings.Contains(r.Stderr, "placeholder") {
			t.Errorf("2,300 named roots: want exit 2 naming the limit, no placeholder left\n%.600s", r)
		}
		assertSameTree(t, before, snapshot(t, many), "the named roots")
		assertSameTree(t, proj, snapshot(t, e.proj), "the cwd")
		ex := e.run(append([]string{"explain"}, args[1:]...)...)
		if !strings.Contains(ex.Stdout, "more than bubblewrap accepts") || !strings.Contains(ex.Stdout, "exec refuses it (exit 2)") {
			t.Errorf("explain does not say exec refuses the policy\n%.300s", ex.Stderr)
		}
	})
}

// TestMoreAgentConfigProtected: the agents and editors the first list
// missed run what their project config says outside any sandbox: opencode
// loads .opencode/plugin/*.js and starts opencode.json's MCP servers,
// Kiro runs .kiro hooks, aider runs .aider.conf.yml's lint-cmd, the dev
// container's initializeCommand runs on the host. None can be planted;
// a missing JSON config reads as "{}" inside, not as a parse error.
func TestMoreAgentConfigProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		before := snapshot(t, e.proj)
		var script []string
		for _, d := range []string{".opencode/plugin", ".kiro/hooks", ".roo", ".continue", ".amazonq", ".qwen", ".devcontainer", ".zed"} {
			script = append(script, "mkdir -p "+d+" && echo x > "+d+"/x")
		}
		for _, f := range []string{"opencode.json", "opencode.jsonc", "crush.json", ".crush.json", ".aider.conf.yml", ".devcontainer.json"} {
			script = append(script, "echo '{\"x\":1}' > "+f, "rm -f "+f)
		}
		script = append(script, "mv .opencode .o; mv .kiro .k", `test "$(cat opencode.json)" = "{}" && echo json-ok`)
		r := e.sh(strings.Join(script, "; "))
		if !strings.Contains(r.Stdout, "json-ok") {
			t.Errorf("a missing JSON config does not read as {} inside:\n%s", r)
		}
		assertSameTree(t, before, snapshot(t, e.proj), "after planting agent and editor config")
	})
}

// TestMoreHomeStartupProtected: with cwd = home, the start-up config of
// programs that run what it says at every start (ripgrep's --pre, which
// agents run on every search; starship's prompt commands; tmux, vim,
// neovim, emacs, gdb, direnv, ipython; opencode's plugins, aider, Kiro,
// Continue, Zed) cannot be planted: the home is as it was.
func TestMoreHomeStartupProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		rg, star := filepath.Join(e.home, "rg.conf"), filepath.Join(e.home, "star.toml")
		before := snapshot(t, e.home)
		var script []string
		for _, f := range []string{"rg.conf", "star.toml", ".config/starship.toml", ".tmux.conf", ".config/tmux/tmux.conf", ".vimrc",
			".vim/plugin/x.vim", ".config/nvim/init.lua", ".emacs", ".emacs.d/init.el", ".gdbinit", ".direnvrc", ".config/direnv/direnvrc",
			".ipython/profile_default/startup/x.py", ".config/opencode/plugin/x.js", ".aider.conf.yml", ".continue/config.yaml",
			".kiro/settings/mcp.json", ".config/zed/settings.json"} {
			script = append(script, "mkdir -p $(dirname "+f+") && echo x > "+f)
		}
		cmd := e.command(e.home, "exec", "--", "sh", "-c", strings.Join(script, "; "))
		cmd.Env = append(cmd.Env, "RIPGREP_CONFIG_PATH="+rg, "STARSHIP_CONFIG="+star)
		e.collect(cmd)
		assertSameTree(t, before, snapshot(t, e.home), "after planting start-up config in home")
	})
}

// TestPlantedFifoDoesNotHangLaterRuns: run 1 puts a FIFO where zsandbox
// reads git's files (.git/config.worktree, a fake submodule's config) and
// an include of /dev/zero; every later run in the repository hung reading
// them. They are read only when regular and small: run 2 runs. (The kill
// after a minute only keeps a regression from hanging the suite.)
func TestPlantedFifoDoesNotHangLaterRuns(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		repo(t, e)
		plant := strings.Join([]string{
			`mkfifo .git/config.worktree`,
			`m=.git/modules/fake; mkdir -p $m/objects $m/refs; echo "ref: refs/heads/x" > $m/HEAD; mkfifo $m/config`,
			`m=.git/modules/zero; mkdir -p $m/objects $m/refs; echo "ref: refs/heads/x" > $m/HEAD; printf '[include]\n\tpath = /dev/zero\n' > $m/config`,
		}, "; ")
		mustSucceed(t, e.sh(plant), "run 1 plants FIFOs")
		cmd := e.command(e.proj, "exec", "--", "echo", "run2")
		timer := time.AfterFunc(time.Minute, func() {
			if cmd.Process != nil {
				cmd.Process.Kill()
			}
		})
		r := e.collect(cmd)
		timer.Stop()
		if r.Code != 0 || !strings.Contains(r.Stdout, "run2") {
			t.Errorf("run 2 after planted FIFOs: want it to run\n%s", r)
		}
	})
}
