package policy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixture lays out a home with a project, a symlinked root and a linked
// worktree, all under one temp dir resolved of symlinks. The dir is not
// under /tmp: a repository above the cwd there does not count (trust.go).
type fixture struct {
	base, home, proj, wt, common string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	base := privateDir(t)
	f := fixture{base: base, home: filepath.Join(base, "home")}
	f.proj = filepath.Join(f.home, "proj")
	f.common = filepath.Join(f.home, "main", ".git")
	f.wt = filepath.Join(f.home, "wt")
	for _, d := range []string{f.proj, f.wt, filepath.Join(f.common, "worktrees", "wt"),
		filepath.Join(f.home, ".ssh"), filepath.Join(f.home, "cache"), filepath.Join(base, "repo-evil")} {
		mustMkdir(t, d)
	}
	writeFile(t, filepath.Join(f.wt, ".git"), "gitdir: "+filepath.Join(f.common, "worktrees", "wt")+"\n")
	writeFile(t, filepath.Join(f.common, "worktrees", "wt", "commondir"), "../..\n")
	writeFile(t, filepath.Join(f.common, "worktrees", "wt", "gitdir"), filepath.Join(f.wt, ".git")+"\n")
	makeGitDir(t, f.common)
	if err := os.Symlink(filepath.Join(f.home, "cache"), filepath.Join(f.home, "cachelink")); err != nil {
		t.Fatal(err)
	}
	return f
}

// privateDir is a fresh directory outside the shared roots (/tmp,
// /var/tmp) and outside any repository (the user's cache directory),
// removed after the test.
func privateDir(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err == nil {
		err = os.MkdirAll(cache, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(cache, "zsandbox-policy-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	d, err = filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// makeGitDir gives d what git needs to call it a repository.
func makeGitDir(t *testing.T, d string) {
	t.Helper()
	mustMkdir(t, filepath.Join(d, "objects"))
	mustMkdir(t, filepath.Join(d, "refs"))
	writeFile(t, filepath.Join(d, "HEAD"), "ref: refs/heads/main\n")
}

func mustMkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f fixture) host(cwd string) Host {
	return Host{Cwd: cwd, Home: f.home, Env: []string{"HOME=" + f.home, "PATH=/usr/bin"}, Uid: os.Geteuid(), Gid: os.Getegid()}
}

// paths keeps only the writable roots a test is about: the defaults /tmp and
// /var/tmp depend on the machine.
func rootsUnder(p *Policy, base string) []Root {
	var out []Root
	for _, r := range p.Writable {
		if Within(r.Path, base) {
			out = append(out, r)
		}
	}
	return out
}

func TestResolveWritable(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name string
		cwd  string
		ask  []Path
		want []Root
	}{
		{"cwd only", f.proj, nil, []Root{{f.proj, SourceCwd}}},
		{"tilde expands to home", f.proj, []Path{{"~/cache", SourceFlag}},
			[]Root{{filepath.Join(f.home, "cache"), SourceFlag}, {f.proj, SourceCwd}}},
		{"relative resolves against cwd", f.proj, []Path{{"../cache", SourceEnv}},
			[]Root{{filepath.Join(f.home, "cache"), SourceEnv}, {f.proj, SourceCwd}}},
		{"duplicate keeps first source", f.proj, []Path{{".", SourceFlag}}, []Root{{f.proj, SourceCwd}}},
		{"linked worktree adds common dir", f.wt, nil,
			[]Root{{f.wt, SourceCwd}, {f.common, SourceWorktree}}},
		{"cwd = home", f.home, nil, []Root{{f.home, SourceCwd}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Resolve(Request{Writable: tc.ask}, f.host(tc.cwd))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(rootsUnder(p, f.base), tc.want); diff != "" {
				t.Errorf("Resolve(%s) writable mismatch (-got +want):\n%s", tc.name, diff)
			}
		})
	}
}

func TestResolveRootInsideHiddenIsOmitted(t *testing.T) {
	f := newFixture(t)
	p, err := Resolve(Request{Writable: []Path{{"~/.ssh", SourceFlag}}}, f.host(f.proj))
	if err != nil {
		t.Fatal(err)
	}
	ssh := filepath.Join(f.home, ".ssh")
	if slices.Contains(p.WritablePaths(), ssh) {
		t.Errorf("hidden ~/.ssh became writable: %v", p.WritablePaths())
	}
	want := Omitted{ssh, SourceFlag, "inside a hidden path"}
	if len(p.Omitted) == 0 || p.Omitted[len(p.Omitted)-1] != want {
		t.Errorf("Omitted = %v, want it to end with %v", p.Omitted, want)
	}
}

func TestResolveSubdirOfRepoAddsGitDir(t *testing.T) {
	f := newFixture(t)
	sub := filepath.Join(f.home, "main", "src")
	mustMkdir(t, sub)
	p, err := Resolve(Request{}, f.host(sub))
	if err != nil {
		t.Fatal(err)
	}
	want := []Root{{f.common, SourceGitDir}, {sub, SourceCwd}}
	if diff := cmp.Diff(rootsUnder(p, f.base), want); diff != "" {
		t.Errorf("writable mismatch (-got +want):\n%s", diff)
	}
}

func TestResolveHidden(t *testing.T) {
	f := newFixture(t)
	p, err := Resolve(Request{Hide: []string{"secrets.txt"}}, f.host(f.proj))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Hidden{}
	for _, h := range p.Hidden {
		got[h.Path] = h
	}
	ssh := filepath.Join(f.home, ".ssh")
	if h := got[ssh]; !h.Exists || !h.IsDir {
		t.Errorf("~/.ssh = %+v, want an existing hidden directory", h)
	}
	if h, ok := got[filepath.Join(f.home, ".aws")]; !ok || h.Exists {
		t.Errorf("~/.aws = %+v (listed %v), want listed as not existing", h, ok)
	}
	if _, ok := got[filepath.Join(f.proj, "secrets.txt")]; !ok {
		t.Errorf("--hide relative path not resolved against cwd: %v", p.Hidden)
	}
}

func TestResolveErrors(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"missing writable root", Request{Writable: []Path{{"/nonexistent-zs", SourceFlag}}},
			`writable root "/nonexistent-zs": no such directory`},
		{"bad network", Request{Network: "maybe"}, `--network "maybe": must be allow, deny or allowlist (with --allow-domain)`},
		{"bad env", Request{SetEnv: []string{"NOEQUALS"}}, `--env "NOEQUALS": must be KEY=VALUE`},
		{"tilde user", Request{Writable: []Path{{"~bob/x", SourceFlag}}}, `only ~ and ~/path`},
		{"missing cwd", Request{Cwd: "/nonexistent-zs"}, `--cwd "/nonexistent-zs": no such directory`},
		{"hide root", Request{Hide: []string{"/"}}, `cannot hide the root directory`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(tc.req, f.host(f.proj))
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Resolve(%s) error = %v, want usage error containing %q", tc.name, err, tc.want)
			}
		})
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		p, root string
		want    bool
	}{
		{"/repo", "/repo", true},
		{"/repo/a", "/repo", true},
		{"/repo-evil", "/repo", false},
		{"/repo-evil/x", "/repo", false},
		{"/x", "/", true},
		{"/re", "/repo", false},
	}
	for _, tc := range tests {
		if got := Within(tc.p, tc.root); got != tc.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tc.p, tc.root, got, tc.want)
		}
	}
}

func TestResolveEnv(t *testing.T) {
	host := []string{"PATH=/bin", "GITHUB_TOKEN=t", "AWS_SECRET_ACCESS_KEY=s", "AWS_REGION=eu",
		"MY_API_KEY=k", "db_password=p", "SSH_AUTH_SOCK=/s", "GH_HOST=x", "HOME=/h", "OPENAI_API_KEY=o"}
	env, dropped, err := resolveEnv(host, []string{"EXTRA=1", "PATH=/usr/bin"}, []string{"OPENAI_API_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	wantEnv := []string{"PATH=/usr/bin", "AWS_REGION=eu", "HOME=/h", "OPENAI_API_KEY=o", "EXTRA=1"}
	if diff := cmp.Diff(env, wantEnv); diff != "" {
		t.Errorf("env mismatch (-got +want):\n%s", diff)
	}
	wantDropped := []string{"AWS_SECRET_ACCESS_KEY", "GH_HOST", "GITHUB_TOKEN", "MY_API_KEY", "SSH_AUTH_SOCK", "db_password"}
	if diff := cmp.Diff(dropped, wantDropped); diff != "" {
		t.Errorf("dropped mismatch (-got +want):\n%s", diff)
	}
}

func TestExpand(t *testing.T) {
	tests := []struct{ in, want string }{
		{"~", "/h"}, {"~/a/../b", "/h/b"}, {"rel", "/c/rel"}, {"/abs/./x", "/abs/x"},
	}
	for _, tc := range tests {
		got, err := Expand(tc.in, "/h", "/c")
		if err != nil || got != tc.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
