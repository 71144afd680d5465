package policy

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// protectedUnder returns the protected paths under base, relative to it,
// each with its source ("path source"), sorted.
func protectedUnder(p *Policy, base string) []string {
	var out []string
	for _, pr := range p.Protected {
		if rel, err := filepath.Rel(base, pr.Path); err == nil && Within(pr.Path, base) {
			out = append(out, rel+" "+string(pr.Source))
		}
	}
	sort.Strings(out)
	return out
}

// projectNames is the project list at one top, with its source.
func projectNames(top string) []string {
	var out []string
	for _, n := range []string{".agents", ".aider.conf.yml", ".amazonq", ".claude", ".codex", ".continue", ".crush.json", ".cursor",
		".devcontainer", ".devcontainer.json", ".envrc", ".gemini", ".gitmodules", ".idea", ".kiro", ".mcp.json", ".opencode",
		".qwen", ".roo", ".vscode", ".zed", ".zidane", "crush.json", "opencode.json", "opencode.jsonc"} {
		out = append(out, filepath.Join(top, n)+" project config")
	}
	return out
}

// gitNames is the git list in dir, config.worktree left out: it needs
// protection only when it exists or extensions.worktreeConfig is on.
func gitNames(dir string, src Source) []string {
	var out []string
	for _, n := range []string{"commondir", "config", "hooks"} {
		out = append(out, filepath.Join(dir, n)+" "+string(src))
	}
	return out
}

func sorted(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	sort.Strings(out)
	return out
}

func TestResolveProtected(t *testing.T) {
	f := newFixture(t)
	repoGit := filepath.Join(f.proj, ".git")
	mustMkdir(t, filepath.Join(repoGit, "hooks"))
	writeFile(t, filepath.Join(repoGit, "config"), "")
	writeFile(t, filepath.Join(f.home, ".bashrc"), "")
	tests := []struct {
		name string
		cwd  string
		ask  []Path
		prot []Path
		base string
		want []string
	}{
		{"repo in cwd", f.proj, nil, nil, f.proj, sorted(gitNames(".git", SourceGit), projectNames("."))},
		{"explicit writable hooks opts out", f.proj, []Path{{".git/hooks", SourceFlag}}, nil, f.proj,
			sorted(gitNames(".git", SourceGit)[:2], projectNames("."))},
		{"--protect adds, --writable wins", f.proj, []Path{{".vscode", SourceFlag}},
			[]Path{{"Makefile", SourceProtectFlag}, {"~/proj/build.sh", SourceSettings}, {".vscode", SourceProtectEnv}}, f.proj,
			sorted(gitNames(".git", SourceGit), projectNames(".")[:19], projectNames(".")[20:],
				[]string{"Makefile --protect", "build.sh settings"})},
		{"linked worktree", f.wt, nil, nil, f.home,
			sorted(gitNames("main/.git", SourceGit), gitNames("main/.git/worktrees/wt", SourceGit),
				[]string{"wt/.git git", "main/.git/worktrees/wt/gitdir git"}, projectNames("wt"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "--protect adds, --writable wins" {
				mustMkdir(t, filepath.Join(f.proj, ".vscode"))
				defer os.Remove(filepath.Join(f.proj, ".vscode"))
			}
			p, err := Resolve(Request{Writable: tc.ask, Protect: tc.prot}, f.host(tc.cwd))
			if err != nil {
				t.Fatal(err)
			}
			for _, pr := range p.Protected {
				if pr.Root != outermost(p, pr.Path) {
					t.Errorf("%s: root %s, want the outermost writable root %s", pr.Path, pr.Root, outermost(p, pr.Path))
				}
				if pr.Why == "" {
					t.Errorf("%s: no why", pr.Path)
				}
			}
			var got []string
			for _, e := range protectedUnder(p, tc.base) {
				if tc.base == f.proj || strings.HasPrefix(e, "wt/") || strings.HasPrefix(e, "main/") {
					got = append(got, e)
				}
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Protected(%s) mismatch (-got +want):\n%s", tc.name, diff)
			}
		})
	}
}

// TestResolveProtectedGitExtras: submodules under .git/modules (nested
// too, names with slashes), core.hooksPath in the repository config and in
// the global one, config includes, and a bare repository as cwd.
func TestResolveProtectedGitExtras(t *testing.T) {
	f := newFixture(t)
	g := filepath.Join(f.proj, ".git")
	for _, d := range []string{g, filepath.Join(g, "modules", "lib"), filepath.Join(g, "modules", "a", "b"),
		filepath.Join(g, "modules", "lib", "modules", "inner"), filepath.Join(g, "modules", "notgit", "x")} {
		mustMkdir(t, filepath.Join(d, "objects"))
		mustMkdir(t, filepath.Join(d, "refs"))
		if !strings.Contains(d, "notgit") {
			writeFile(t, filepath.Join(d, "HEAD"), "ref: refs/heads/main\n")
		}
	}
	emb := filepath.Join(f.proj, "vendor", "emb", ".git")
	mustMkdir(t, filepath.Join(emb, "objects"))
	mustMkdir(t, filepath.Join(emb, "refs"))
	writeFile(t, filepath.Join(emb, "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(f.proj, ".gitmodules"), "[submodule \"emb\"]\n\tpath = vendor/emb\n[submodule \"lib\"]\n\tpath = lib\n[submodule \"up\"]\n\tpath = ../../x\n")
	mustMkdir(t, filepath.Join(f.proj, "lib"))
	writeFile(t, filepath.Join(f.proj, "lib", ".git"), "gitdir: ../.git/modules/lib\n")
	writeFile(t, filepath.Join(g, "modules", "lib", "config"), "[core]\n\tworktree = ../../../lib\n")
	writeFile(t, filepath.Join(g, "modules", "a", "b", "config"), "[core]\n\tworktree = ../../../../a/b\n")
	writeFile(t, filepath.Join(g, "config"), "[core]\n\tbare = false\n\thooksPath = \".husky/_\" ; husky\n[include]\n\tpath = ../conf/git.inc\n[extensions]\n\tworktreeConfig = true\n")
	writeFile(t, filepath.Join(f.home, ".gitconfig"), "[Core]\n  HooksPath = .githooks\n")
	p, err := Resolve(Request{}, f.host(f.proj))
	if err != nil {
		t.Fatal(err)
	}
	want := sorted(gitNames(".git", SourceGit), projectNames("."),
		gitNames(".git/modules/lib", SourceSubmodule), gitNames(".git/modules/a/b", SourceSubmodule),
		gitNames(".git/modules/lib/modules/inner", SourceSubmodule),
		[]string{".husky/_ core.hooksPath", ".githooks core.hooksPath", "conf/git.inc git include", ".git/config.worktree git",
			"lib/.git git submodule", "lib/.githooks core.hooksPath", "a/b/.githooks core.hooksPath"},
		gitNames("vendor/emb/.git", SourceSubmodule), []string{"vendor/emb/.githooks core.hooksPath"})
	if diff := cmp.Diff(protectedUnder(p, f.proj), want); diff != "" {
		t.Errorf("Protected mismatch (-got +want):\n%s", diff)
	}
	for _, pr := range p.Protected {
		if strings.HasSuffix(pr.Path, "commondir") && pr.Content != ".\n" {
			t.Errorf("%s: placeholder content %q, want \".\\n\" (git dies on an empty commondir)", pr.Path, pr.Content)
		}
	}

	bare := filepath.Join(f.base, "bare.git")
	for _, d := range []string{"objects", "refs", "hooks"} {
		mustMkdir(t, filepath.Join(bare, d))
	}
	writeFile(t, filepath.Join(bare, "HEAD"), "ref: refs/heads/main\n")
	p, err = Resolve(Request{}, f.host(bare))
	if err != nil {
		t.Fatal(err)
	}
	want = sorted(gitNames(".", SourceGit), projectNames("."), []string{".githooks core.hooksPath"})
	if diff := cmp.Diff(protectedUnder(p, bare), want); diff != "" {
		t.Errorf("bare repository as cwd: Protected mismatch (-got +want):\n%s", diff)
	}
}

func TestResolveProtectedHomeWhenWritable(t *testing.T) {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.home, ".bashrc"), "")
	xdg := filepath.Join(f.home, "xdg")
	h := f.host(f.home)
	h.Env = append(h.Env, "XDG_CONFIG_HOME="+xdg, "PATH=/usr/bin:"+filepath.Join(f.home, "go/bin")+":relative/bin",
		"BASH_ENV="+filepath.Join(f.home, "env.sh"), "PYTHONSTARTUP=relative.py")
	p, err := Resolve(Request{}, h)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Protected{}
	for _, pr := range p.Protected {
		got[pr.Path] = pr
	}
	for name, exists := range map[string]bool{".bashrc": true, ".zshenv": false, ".gitconfig": false, ".config/git": false,
		".bash_aliases": false, ".bashrc.d": false, "xdg/git": false, ".config/fish": false, "xdg/fish": false,
		"bin": false, ".local/bin": false, ".local/lib": false, "go/bin": false, ".claude": false, ".claude.json": false,
		".mcp.json": false, "env.sh": false, ".vscode-server": false} {
		pr, ok := got[filepath.Join(f.home, name)]
		if !ok || pr.Exists != exists {
			t.Errorf("~/%s: listed=%v exists=%v, want listed, exists=%v", name, ok, pr.Exists, exists)
		}
	}
	for name, dir := range map[string]bool{".bashrc.d": true, ".zshenv": false, "go/bin": true, ".claude": true, ".claude.json": false} {
		if pr := got[filepath.Join(f.home, name)]; pr.IsDir != dir {
			t.Errorf("~/%s: isDir=%v, want %v", name, pr.IsDir, dir)
		}
	}
	if _, ok := got[filepath.Join(f.home, "relative/bin")]; ok {
		t.Errorf("a relative PATH entry was protected")
	}
	// The hidden ~/.config/git/credentials lies under the protected (and
	// missing) ~/.config/git: a placeholder there leaves no directory
	// to make its own placeholder in, and none is needed.
	if _, ok := got[filepath.Join(f.home, ".config/git/credentials")]; ok {
		t.Errorf("~/.config/git/credentials protected under the protected ~/.config/git: %v", p.Protected)
	}

	if _, ok := got[filepath.Join(f.home, "relative.py")]; ok {
		t.Errorf("a relative PYTHONSTARTUP was protected")
	}
}

// TestResolveProtectedPathInCwd: a PATH directory inside the project (a
// node_modules/.bin) stays writable; one in home is protected when home
// is writable.
func TestResolveProtectedPathInCwd(t *testing.T) {
	f := newFixture(t)
	h := f.host(f.proj)
	h.Env = append(h.Env, "PATH="+filepath.Join(f.proj, "node_modules/.bin")+":"+filepath.Join(f.home, ".local/bin"))
	p, err := Resolve(Request{Writable: []Path{{"~", SourceFlag}}}, h)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, pr := range p.Protected {
		got[pr.Path] = true
	}
	if got[filepath.Join(f.proj, "node_modules/.bin")] || !got[filepath.Join(f.home, ".local/bin")] {
		t.Errorf("PATH dirs: node_modules/.bin protected=%v, ~/.local/bin protected=%v; want false, true",
			got[filepath.Join(f.proj, "node_modules/.bin")], got[filepath.Join(f.home, ".local/bin")])
	}
}

// TestResolveProtectedHoldingRoot: a protected path that holds the cwd
// (cwd inside ~/.local/bin with home writable) stays protected, as one
// holding TMPDIR does: only a root the user names opens a protected path.
func TestResolveProtectedHoldingRoot(t *testing.T) {
	f := newFixture(t)
	cwd := filepath.Join(f.home, ".local", "bin", "tool")
	mustMkdir(t, cwd)
	p, err := Resolve(Request{Writable: []Path{{"~", SourceFlag}}}, f.host(cwd))
	if err != nil {
		t.Fatal(err)
	}
	if !contains(p.ProtectedPaths(), filepath.Join(f.home, ".local", "bin")) {
		t.Errorf("~/.local/bin, which holds the cwd, is not protected: %v", p.ProtectedPaths())
	}
}

func TestResolveProtectedSymlinkRefused(t *testing.T) {
	f := newFixture(t)
	if err := os.Symlink(filepath.Join(f.home, "cache"), filepath.Join(f.home, ".bashrc")); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(Request{}, f.host(f.home))
	var unsafe *UnsafeError
	if !errors.As(err, &unsafe) {
		t.Fatalf("Resolve with a symlinked ~/.bashrc in a writable home: %v, want UnsafeError", err)
	}
	_, err = Resolve(Request{Protect: []Path{{"cachelink/x", SourceProtectFlag}}}, f.host(f.home))
	if !errors.As(err, &unsafe) {
		t.Fatalf("--protect through a symlink in a writable root: %v, want UnsafeError", err)
	}
}

// TestResolveProtectedInsideMissing: a protected path below one that does
// not exist is covered by the missing one's placeholder (and no
// placeholder can be made inside another).
func TestResolveProtectedInsideMissing(t *testing.T) {
	f := newFixture(t)
	p, err := Resolve(Request{Protect: []Path{{".claude/settings.json", SourceProtectFlag}, {".vscode", SourceProtectFlag}}}, f.host(f.proj))
	if err != nil {
		t.Fatal(err)
	}
	got := protectedUnder(p, f.proj)
	for _, e := range got {
		if strings.HasPrefix(e, ".claude/") {
			t.Errorf("%s is listed below the missing .claude", e)
		}
	}
	if !contains(got, ".claude project config") || !contains(got, ".vscode project config") {
		t.Errorf("Protected = %v, want .claude and .vscode from the project list", got)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func TestResolveProtectBadInput(t *testing.T) {
	f := newFixture(t)
	for _, raw := range []string{"", "/", "~other/x", "a\x00b"} {
		_, err := Resolve(Request{Protect: []Path{{raw, SourceProtectFlag}}}, f.host(f.proj))
		var usage *UsageError
		if !errors.As(err, &usage) {
			t.Errorf("--protect %q: %v, want a usage error", raw, err)
		}
	}
}

func TestResolveCwdInsideHiddenRefused(t *testing.T) {
	f := newFixture(t)
	_, err := Resolve(Request{}, f.host(filepath.Join(f.home, ".ssh")))
	var unsafe *UnsafeError
	if !errors.As(err, &unsafe) {
		t.Fatalf("Resolve with cwd inside hidden ~/.ssh: %v, want UnsafeError", err)
	}
}

func TestReadGitConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "inc"), "[core]\n\thookspath = /from/include\n")
	writeFile(t, filepath.Join(dir, "config"), strings.Join([]string{
		"# comment", "[core]", "\tHooksPath = \"a b\\\\c\" # trailing", "[includeIf \"gitdir:~/w/\"]", "\tpath = inc",
		"[core \"x\"]", "\tworktree = ../wt", "[other]", "\thooksPath = /not/core",
	}, "\n"))
	c := readGitConfig(filepath.Join(dir, "config"), "/home/u")
	want := gitConfig{hooksPaths: []string{`a b\c`, "/from/include"}, includes: []string{filepath.Join(dir, "inc")}, worktree: "../wt"}
	if diff := cmp.Diff(c, want, cmp.AllowUnexported(gitConfig{})); diff != "" {
		t.Errorf("readGitConfig mismatch (-got +want):\n%s", diff)
	}
}

// outermost is the highest writable root strictly above path.
func outermost(p *Policy, path string) string {
	best := ""
	for _, r := range p.Writable {
		if Within(path, r.Path) && path != r.Path && (best == "" || len(r.Path) < len(best)) {
			best = r.Path
		}
	}
	return best
}
