package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// These tests plant code where git, the shells, python, the agents and
// the editors find it later, then run the ordinary follow-up command on
// the host, outside any sandbox, as the same identity. Planted code
// touches a marker in e.outside, which the sandbox cannot write: a marker
// on the host means planted code ran outside the sandbox.

// hostRun runs argv on the host as the identity with HOME = the fixture
// home, the way the user's next command would run.
func (e *env) hostRun(dir string, extraEnv []string, argv ...string) result {
	e.t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{"HOME=" + e.home, "PATH=/usr/bin:/bin", "LANG=C", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e"}, extraEnv...)
	e.id.Own(cmd)
	return harness.Run(e.t, cmd)
}

// markerPrefix is what planted code touches (with a suffix per attack).
func (e *env) markerPrefix() string { return filepath.Join(e.outside, "ran") }

// assertNothingRan fails for every marker planted code left on the host.
func assertNothingRan(t *testing.T, e *env, what string) {
	t.Helper()
	ents, _ := os.ReadDir(e.outside)
	for _, ent := range ents {
		if strings.HasPrefix(ent.Name(), "ran") {
			t.Errorf("%s: planted code ran outside the sandbox (%s)", what, ent.Name())
		}
	}
}

// superRepo makes the project a repository with a local submodule "sub"
// (two commits; the superproject records the second), per-worktree config
// on, and husky-style hooks in .husky/_ (core.hooksPath).
func superRepo(t *testing.T, e *env) (subsrc string) {
	t.Helper()
	subsrc = filepath.Join(e.base, "subsrc")
	e.mkdir(subsrc)
	git(t, subsrc, "init", "-q")
	git(t, subsrc, "commit", "-q", "--allow-empty", "-m", "c1")
	git(t, subsrc, "commit", "-q", "--allow-empty", "-m", "c2")
	git(t, e.proj, "init", "-q")
	e.write(filepath.Join(e.proj, "Makefile"), "all:\n")
	git(t, e.proj, "add", "Makefile")
	git(t, e.proj, "-c", "protocol.file.allow=always", "submodule", "add", "-q", subsrc, "sub")
	// An embedded submodule: its .git is a directory in the work tree,
	// known only from .gitmodules.
	emb := filepath.Join(e.proj, "emb")
	e.mkdir(emb)
	git(t, emb, "init", "-q")
	git(t, emb, "commit", "-q", "--allow-empty", "-m", "e1")
	git(t, e.proj, "add", "emb")
	git(t, e.proj, "config", "-f", ".gitmodules", "submodule.emb.path", "emb")
	git(t, e.proj, "config", "-f", ".gitmodules", "submodule.emb.url", "./emb")
	git(t, e.proj, "add", ".gitmodules")
	git(t, e.proj, "commit", "-q", "-m", "init")
	git(t, e.proj, "config", "extensions.worktreeConfig", "true")
	git(t, e.proj, "config", "core.hooksPath", ".husky/_")
	e.mkdir(filepath.Join(e.proj, ".husky", "_"))
	e.chownAll()
	return subsrc
}

// TestGitReadsMoreProtected: every file git reads and runs from besides
// .git/hooks and .git/config, and the agent and editor config of the
// project, cannot be planted; then git status and commits on the host, in
// the superproject and in the submodule, run nothing the sandbox wrote.
func TestGitReadsMoreProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		superRepo(t, e)
		script := strings.Join([]string{
			`M=` + e.markerPrefix(),
			`fs() { printf '[core]\n\tfsmonitor = "touch %s-%s; false"\n' "$M" "$1"; }`,
			`hook() { printf '#!/bin/sh\ntouch %s-%s\n' "$M" "$1" > "$2"; chmod +x "$2"; }`,
			// .git/commondir: git takes config and hooks from a copy.
			`cp -r .git "$TMPDIR/evil"; fs commondir >> "$TMPDIR/evil/config"; hook commondir-hook "$TMPDIR/evil/hooks/post-commit"`,
			`echo "$TMPDIR/evil" > .git/commondir`,
			`fs config-worktree > .git/config.worktree`,
			// The submodule: its config, its hooks, its .git file.
			`git -C sub config core.fsmonitor "touch $M-subconfig; false"`,
			`fs subconfig2 >> .git/modules/sub/config`,
			`hook subhook .git/modules/sub/hooks/post-commit`,
			`mv sub/.git sub/.git.old; rm -f sub/.git; git init -q sub && git -C sub config core.fsmonitor "touch $M-subgitfile; false"`,
			`git -C emb config core.fsmonitor "touch $M-embedded; false"; hook embhook emb/.git/hooks/post-commit`,
			// core.hooksPath (husky).
			`hook hookspath .husky/_/post-commit`,
			// Agent and editor config.
			`mkdir -p .claude && echo "{\"hooks\":{\"SessionStart\":[{\"command\":\"touch $M-claude\"}]}}" > .claude/settings.json`,
			`echo '{"mcpServers":{}}' > .mcp.json`,
			`mkdir -p .vscode && echo '{}' > .vscode/tasks.json`,
			`echo "touch $M-envrc" > .envrc`,
			`for d in .idea .codex .gemini .cursor .agents .zidane; do mkdir -p $d && echo x > $d/x; done`,
			`printf '[submodule "evil"]\n\tpath = evil\n\turl = /x\n' >> .gitmodules`,
			// --protect entries, one existing and one not.
			`echo evil >> Makefile; echo evil > build.sh`,
			`true`,
		}, "\n")
		config, _ := os.ReadFile(filepath.Join(e.proj, ".git", "config"))
		subConfig, _ := os.ReadFile(filepath.Join(e.proj, ".git", "modules", "sub", "config"))
		gitmodules, _ := os.ReadFile(filepath.Join(e.proj, ".gitmodules"))
		gitfile, _ := os.ReadFile(filepath.Join(e.proj, "sub", ".git"))
		before := snapshot(t, e.proj)
		e.sh(script, "--protect", "Makefile", "--protect", "build.sh")
		assertSameTree(t, before, snapshot(t, e.proj), "after the git and project-config attacks")
		harness.MustContain(t, filepath.Join(e.proj, ".git", "config"), string(config))
		harness.MustContain(t, filepath.Join(e.proj, ".git", "modules", "sub", "config"), string(subConfig))
		harness.MustContain(t, filepath.Join(e.proj, ".gitmodules"), string(gitmodules))
		harness.MustContain(t, filepath.Join(e.proj, "sub", ".git"), string(gitfile))
		harness.MustContain(t, filepath.Join(e.proj, "Makefile"), "all:\n")

		for _, step := range []struct {
			dir  string
			argv []string
		}{
			{e.proj, []string{"git", "status", "--porcelain"}},
			{e.proj, []string{"git", "commit", "-q", "--allow-empty", "-m", "host"}},
			{filepath.Join(e.proj, "sub"), []string{"git", "status", "--porcelain"}},
			{filepath.Join(e.proj, "sub"), []string{"git", "commit", "-q", "--allow-empty", "-m", "host"}},
			{filepath.Join(e.proj, "emb"), []string{"git", "commit", "-q", "--allow-empty", "-m", "host"}},
		} {
			mustSucceed(t, e.hostRun(step.dir, nil, step.argv...), "host follow-up "+strings.Join(step.argv, " "))
		}
		assertNothingRan(t, e, "git on the host after the run")
	})
}

// TestHomeStartupMoreProtected: with cwd = home, the start-up files the
// first list missed cannot be planted; then an interactive and a login
// bash, python, programs looked up on PATH and git on the host run
// nothing the sandbox wrote, and the home is as it was.
func TestHomeStartupMoreProtected(t *testing.T) {
	py, err := exec.Command("/usr/bin/python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])").Output()
	if err != nil {
		t.Fatalf("/usr/bin/python3 is needed for this test: %v", err)
	}
	site := ".local/lib/python" + strings.TrimSpace(string(py)) + "/site-packages"
	each(t, func(t *testing.T, e *env) {
		// Debian's and Fedora's stock .bashrc source these.
		e.write(filepath.Join(e.home, ".bashrc"),
			"[ -f ~/.bash_aliases ] && . ~/.bash_aliases\nfor f in ~/.bashrc.d/*; do [ -r \"$f\" ] && . \"$f\"; done\n")
		xdg := filepath.Join(e.home, "xdg")
		e.mkdir(xdg)
		r := filepath.Join(e.base, "r")
		e.mkdir(r)
		git(t, r, "init", "-q")
		e.write(filepath.Join(r, "f"), "f\n")
		git(t, r, "add", "f")
		git(t, r, "commit", "-q", "-m", "f")
		e.chownAll()
		goBin := filepath.Join(e.home, "go", "bin")
		script := strings.Join([]string{
			`M=` + e.markerPrefix(),
			`echo "touch $M-aliases" > .bash_aliases`,
			`mkdir -p .bashrc.d; echo "touch $M-bashrcd" > .bashrc.d/evil.sh`,
			`echo "touch $M-bashrc" >> .bashrc; echo "touch $M-profile" >> .profile; echo "touch $M-zlogout" > .zlogout`,
			`echo '"\C-m": "touch '$M'-inputrc\n"' > .inputrc`,
			`mkdir -p xdg/git .config/git; printf '[core]\n\tfsmonitor = "touch %s-xdggit; false"\n' $M | tee xdg/git/config > .config/git/config`,
			`mkdir -p .config/fish/conf.d; echo "touch $M-fish" > .config/fish/config.fish`,
			`for d in bin .local/bin go/bin; do mkdir -p $d; printf '#!/bin/sh\ntouch %s-path\n' $M > $d/ls; chmod +x $d/ls; done`,
			`mkdir -p ` + site + ` && echo "import os; os.system('touch $M-pth')" > ` + site + `/evil.pth`,
			`echo "import os; os.system('touch $M-usercustomize')" > ` + site + `/usercustomize.py`,
			`mkdir -p .claude && echo '{}' > .claude/settings.json; echo '{}' > .claude.json; mkdir -p .codex && echo x > .codex/config.toml`,
			`echo "script-shell=$M" > .npmrc`,
			`mkdir -p .config/systemd/user .config/autostart .config/environment.d`,
			`echo x > .config/systemd/user/evil.service; echo x > .config/autostart/evil.desktop; echo LD_PRELOAD=/x > .config/environment.d/x.conf`,
			`true`,
		}, "\n")
		before := snapshot(t, e.home)
		cmd := e.command(e.home, "exec", "--", "sh", "-c", script)
		cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+xdg, "PATH="+goBin+":"+os.Getenv("PATH"))
		cmd.Run()
		assertSameTree(t, before, snapshot(t, e.home), "after the start-up attacks")

		env := []string{"XDG_CONFIG_HOME=" + xdg}
		pathEnv := []string{"PATH=" + strings.Join([]string{filepath.Join(e.home, "bin"), filepath.Join(e.home, ".local/bin"), goBin, "/usr/bin", "/bin"}, ":")}
		mustSucceed(t, e.hostRun(e.home, env, "bash", "-i", "-c", "true"), "bash -i on the host")
		mustSucceed(t, e.hostRun(e.home, env, "bash", "-l", "-c", "true"), "bash -l on the host")
		mustSucceed(t, e.hostRun(e.home, env, "/usr/bin/python3", "-c", "pass"), "python3 on the host")
		mustSucceed(t, e.hostRun(e.home, pathEnv, "sh", "-c", "ls >/dev/null"), "ls from PATH on the host")
		mustSucceed(t, e.hostRun(r, env, "git", "status", "--porcelain"), "git status on the host")
		assertNothingRan(t, e, "shells, python, PATH and git on the host after the run")
	})
}

// gitWorkflow commits, switches branches, stashes and rebases, and prints
// the number of commits it ends with (4).
const gitWorkflow = `g='git -c user.name=z -c user.email=z@e'
echo a > a && git add a && $g commit -qm a
git branch topic && git checkout -q topic && echo b > b && git add b && $g commit -qm b
git checkout -q - && echo c > c && git add c && $g commit -qm c
echo dirty >> a && git stash -q && git stash pop -q && git checkout -q a
git checkout -q topic && $g rebase -q - && git log --oneline | wc -l`

// TestProtectedLegitWork: with the whole set in force, ordinary work goes
// on: commits, branch switches, a rebase, moving a submodule and updating
// it, npm install of a local package (node_modules/.bin), editing
// project files, an agent editing its own config when it is named with
// --writable; explain says which entries are in force and why.
func TestProtectedLegitWork(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		subsrc := superRepo(t, e)
		pkg := filepath.Join(e.proj, "packages", "localpkg")
		e.mkdir(pkg)
		e.write(filepath.Join(pkg, "package.json"), `{"name":"localpkg","version":"1.0.0","bin":{"lp":"cli.js"}}`)
		e.write(filepath.Join(pkg, "cli.js"), "#!/usr/bin/env node\nconsole.log('lp ran')\n")
		e.write(filepath.Join(e.proj, "package.json"), `{"name":"p","version":"1.0.0","dependencies":{"localpkg":"file:./packages/localpkg"}}`)
		e.mkdir(filepath.Join(e.proj, ".claude"))
		git(t, subsrc, "commit", "-q", "--allow-empty", "-m", "c3")
		e.chownAll()

		script := strings.Join([]string{
			"set -e", gitWorkflow + " > commits",
			// Moving the submodule by hand: fetch, detach, back.
			"git -C sub fetch -q && git -C sub checkout -q --detach FETCH_HEAD && git -C sub checkout -q --detach HEAD~1",
			"npm install --no-audit --no-fund --offline --no-update-notifier --cache \"$TMPDIR/npm-cache\" >/dev/null 2>&1",
			"./node_modules/.bin/lp",
			"echo edited >> Makefile",
		}, "\n")
		r := e.sh(script)
		mustSucceed(t, r, "git, submodule and npm work")
		harness.MustContain(t, filepath.Join(e.proj, "commits"), "4\n")
		harness.MustContain(t, filepath.Join(e.proj, "Makefile"), "all:\nedited\n")
		if _, err := os.Lstat(filepath.Join(e.proj, "node_modules", ".bin", "lp")); err != nil || !strings.Contains(r.Stdout, "lp ran") {
			t.Errorf("npm install did not make node_modules/.bin/lp on the host (%v)\n%s", err, r)
		}

		// git submodule update rewrites the submodule's config (core.worktree),
		// which is protected: it fails with the protected hint, and works
		// once the user names that config with --writable.
		r = e.sh("git submodule update")
		if r.Code == 0 || !strings.Contains(r.Stderr, "zsandbox: hint: "+filepath.Join(e.proj, ".git/modules/sub/config")+" is protected (the repository's config") {
			t.Errorf("git submodule update without opting in: want a failure with the protected hint\n%s", r)
		}
		mustSucceed(t, e.sh("git submodule update", "--writable", ".git/modules/sub/config"), "git submodule update with --writable .git/modules/sub/config")
		if head, want := git(t, filepath.Join(e.proj, "sub"), "rev-parse", "HEAD"), git(t, subsrc, "rev-parse", "HEAD~1"); head != want {
			t.Errorf("submodule after update at %s, want the recorded commit %s", head, want)
		}

		mustSucceed(t, e.sh(`echo '{"permissions":{}}' > .claude/settings.json`, "--writable", ".claude"), "agent edits its own config with --writable .claude")
		harness.MustContain(t, filepath.Join(e.proj, ".claude", "settings.json"), `{"permissions":{}}`+"\n")

		settings := filepath.Join(e.outside, "settings.json")
		e.write(settings, `{"protect": ["from-settings"]}`)
		cmd := e.command(e.proj, "explain", "--format", "json", "--settings", settings, "--protect", "Makefile")
		cmd.Env = append(cmd.Env, "ZSANDBOX_PROTECT=from-env-a:from-env-b")
		out, err := cmd.Output()
		var doc struct {
			Protected []struct{ Path, Source, Why string }
		}
		if err != nil || json.Unmarshal(out, &doc) != nil {
			t.Fatalf("explain json: %v\n%s", err, out)
		}
		got := map[string]string{}
		for _, pr := range doc.Protected {
			got[pr.Path] = pr.Source
			if pr.Why == "" {
				t.Errorf("explain: %s has no why", pr.Path)
			}
		}
		for rel, src := range map[string]string{"Makefile": "--protect", ".git/commondir": "git", ".git/modules/sub/config": "git submodule",
			"sub/.git": "git submodule", ".husky/_": "core.hooksPath", ".claude": "project config", ".mcp.json": "project config",
			"from-settings": "settings", "from-env-a": "ZSANDBOX_PROTECT", "from-env-b": "ZSANDBOX_PROTECT"} {
			if got[filepath.Join(e.proj, rel)] != src {
				t.Errorf("explain: %s has source %q, want %q", rel, got[filepath.Join(e.proj, rel)], src)
			}
		}
	})
}

// TestBareRepositoryProtected: a bare repository as the cwd, or named with
// --writable, keeps its hooks/ and config (at its top) read-only; a push
// into it on the host runs no hook the sandbox planted.
func TestBareRepositoryProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		bare := filepath.Join(e.base, "bare.git")
		git(t, e.base, "init", "-q", "--bare", bare)
		e.chownAll()
		config, _ := os.ReadFile(filepath.Join(bare, "config"))
		plant := func(dir string) string {
			return `M=` + e.markerPrefix() + `; cd ` + dir + `; mv hooks hooks.old; mkdir hooks; ` +
				`for h in pre-receive update post-receive; do printf '#!/bin/sh\ntouch %s-bare-%s\n' $M $h > hooks/$h; chmod +x hooks/$h; done; ` +
				`printf '[receive]\n\tdenyCurrentBranch = ignore\n' >> config; true`
		}
		before := snapshot(t, bare)
		e.runIn(bare, nil, "exec", "--", "sh", "-c", plant("."))
		e.run("exec", "--writable", bare, "--", "sh", "-c", plant(bare))
		assertSameTree(t, before, snapshot(t, bare), "after planting hooks in a bare repository")
		harness.MustContain(t, filepath.Join(bare, "config"), string(config))

		clone := filepath.Join(e.outside, "clone")
		mustSucceed(t, e.hostRun(e.outside, nil, "git", "clone", "-q", bare, clone), "clone on the host")
		mustSucceed(t, e.hostRun(clone, nil, "git", "commit", "-q", "--allow-empty", "-m", "x"), "commit on the host")
		mustSucceed(t, e.hostRun(clone, nil, "git", "push", "-q", "origin", "HEAD:refs/heads/main"), "push on the host")
		assertNothingRan(t, e, "push into the bare repository")
	})
}

// TestForeignCheckoutRuns: in a repository the caller cannot write (owned
// by root, run as the unprivileged user), the missing protected paths need
// no placeholder (the command could not create them either), so the run
// starts instead of failing to make one; a write there still fails.
func TestForeignCheckoutRuns(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ro := filepath.Join(e.base, "ro-repo")
		os.MkdirAll(ro, 0o755)
		git(t, ro, "init", "-q")
		git(t, ro, "commit", "-q", "--allow-empty", "-m", "init")
		r := e.runIn(ro, nil, "exec", "--", "sh", "-c", "git -c safe.directory='*' status --porcelain && echo ran")
		mustSucceed(t, r, "a run in a checkout owned by root")
		if !strings.Contains(r.Stdout, "ran") {
			t.Errorf("the command did not run\n%s", r)
		}
		if e.id.UID != 0 {
			mustFail(t, e.runIn(ro, nil, "exec", "--", "sh", "-c", "echo x > .git/commondir"), "plant commondir in a foreign checkout")
		}
		harness.MustNotExist(t, filepath.Join(ro, ".git", "commondir"))
		harness.MustNotExist(t, filepath.Join(ro, ".claude"))
	})
}

// TestFailedStartLeavesNothing: when a placeholder cannot be made (as the
// user: a ~/.config/systemd it owns but made unreadable, chmod 000, so the
// command could chmod it back and is not spared the protection of
// ~/.config/systemd/user; zsandbox lends write permission, not read),
// zsandbox refuses to run (127) and removes the placeholders it had made
// already; as root it runs. The home is as it was either way.
func TestFailedStartLeavesNothing(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		cfg := filepath.Join(e.home, ".config")
		os.RemoveAll(filepath.Join(cfg, "zsandbox"))
		os.RemoveAll(filepath.Join(cfg, "gcloud"))
		e.mkdir(filepath.Join(cfg, "systemd"))
		e.chownAll()
		os.Chmod(filepath.Join(cfg, "systemd"), 0o000)
		defer os.Chmod(filepath.Join(cfg, "systemd"), 0o755)
		before := snapshot(t, e.home)
		r := e.runIn(e.home, nil, "exec", "--", "true")
		if e.id.UID != 0 && (r.Code != 127 || !strings.Contains(r.Stderr, "the command did not run")) {
			t.Errorf("a placeholder that cannot be made: want exit 127\n%s", r)
		}
		if e.id.UID == 0 {
			mustSucceed(t, r, "as root, the placeholders can be made")
		}
		assertSameTree(t, before, snapshot(t, e.home), "after a run that could not make its placeholders")
	})
}
