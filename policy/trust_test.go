package policy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLinkVerdict: which symlinks on the way to a writable root are
// followed, from the facts alone (a fake macOS and Linux layout).
func TestLinkVerdict(t *testing.T) {
	root755 := stat{uid: 0, mode: os.ModeDir | 0o755}
	rootLink := stat{uid: 0, mode: os.ModeSymlink | 0o777}
	userLink := stat{uid: 501, mode: os.ModeSymlink | 0o777}
	tests := []struct {
		name   string
		uid    int
		dir    string
		l, d   stat
		follow bool
	}{
		{"macOS /tmp -> private/tmp, user", 501, "/", rootLink, root755, true},
		{"macOS /var -> private/var, root", 0, "/", rootLink, root755, true},
		{"Linux /var/run -> /run, root", 0, "/var", rootLink, root755, true},
		{"root-owned link in /srv/x, user", 501, "/srv/x", rootLink, root755, true},
		{"root-owned link in /srv/x, root: an earlier --writable /srv/x run could have made it", 0, "/srv/x", rootLink, root755, false},
		{"the user's own link", 501, "/Users/u", userLink, stat{uid: 501, mode: os.ModeDir | 0o755}, false},
		{"root's link in a user's directory", 501, "/Users/u", rootLink, stat{uid: 501, mode: os.ModeDir | 0o755}, false},
		{"root's link in a group-writable directory", 501, "/srv", rootLink, stat{uid: 0, mode: os.ModeDir | 0o775}, false},
		{"a link under /tmp", 501, "/private/tmp/x", rootLink, root755, false},
	}
	for _, tc := range tests {
		tr := &trust{uid: tc.uid, overflow: -1, shared: pathSet{"/tmp": true, "/private/tmp": true, "/var/tmp": true}}
		if got := tr.linkVerdict(tc.dir, tc.l, tc.d) == ""; got != tc.follow {
			t.Errorf("%s: followed = %v, want %v (%s)", tc.name, got, tc.follow, tr.linkVerdict(tc.dir, tc.l, tc.d))
		}
	}
}

// TestResolveWritableThroughSymlinkRefused: run 1 replaced ./cache with a
// symlink to a victim; run 2's --writable ./cache (or a settings entry, or
// --cwd, or TMPDIR) must not follow it.
func TestResolveWritableThroughSymlinkRefused(t *testing.T) {
	f := newFixture(t)
	victim := filepath.Join(f.base, "repo-evil")
	if err := os.Symlink(victim, filepath.Join(f.proj, "cache")); err != nil {
		t.Fatal(err)
	}
	host := f.host(f.proj)
	for name, req := range map[string]Request{
		"--writable": {Writable: []Path{{"cache", SourceFlag}}},
		"settings":   {Writable: []Path{{"cache", SourceSettings}}},
		"--cwd":      {Cwd: "cache"},
	} {
		_, err := Resolve(req, host)
		var unsafe *UnsafeError
		if !errors.As(err, &unsafe) || !strings.Contains(unsafe.Msg, filepath.Join(f.proj, "cache")) || !strings.Contains(unsafe.Hint, "name the real directory "+victim) {
			t.Errorf("%s through a planted symlink: %v, want an UnsafeError naming it", name, err)
		}
	}
	host.Env = append(host.Env, "TMPDIR="+filepath.Join(f.proj, "cache"))
	if _, err := Resolve(Request{}, host); err == nil {
		t.Errorf("TMPDIR through a planted symlink resolved")
	}
}

// TestResolvePlantedGitDoesNotWiden: a .git file in a non-repository cwd
// (or a parent) naming a fake git dir whose commondir is a victim, and a
// real worktree whose admin files were rewritten, add no writable root.
func TestResolvePlantedGitDoesNotWiden(t *testing.T) {
	f := newFixture(t)
	victim := filepath.Join(f.base, "repo-evil")
	makeGitDir(t, victim)
	fake := filepath.Join(f.base, "fake", "worktrees", "x")
	mustMkdir(t, fake)
	writeFile(t, filepath.Join(fake, "commondir"), victim+"\n")
	writeFile(t, filepath.Join(fake, "gitdir"), filepath.Join(f.proj, ".git")+"\n")
	writeFile(t, filepath.Join(f.proj, ".git"), "gitdir: "+fake+"\n")
	sub := filepath.Join(f.proj, "sub")
	mustMkdir(t, sub)
	for _, cwd := range []string{f.proj, sub} {
		p, err := Resolve(Request{}, f.host(cwd))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Writable {
			if Within(r.Path, filepath.Join(f.base, "fake")) || Within(r.Path, victim) {
				t.Errorf("cwd %s: planted .git widened the run: %v", cwd, r)
			}
		}
		said := false
		for _, o := range p.Omitted {
			said = said || (o.Path == victim && strings.Contains(o.Reason, "does not count"))
		}
		if !said {
			t.Errorf("cwd %s: explain does not say why the planted common dir is left out: %v", cwd, p.Omitted)
		}
	}
	// The real worktree, its commondir rewritten to another repository.
	writeFile(t, filepath.Join(f.common, "worktrees", "wt", "commondir"), victim+"\n")
	p, err := Resolve(Request{}, f.host(f.wt))
	if err != nil {
		t.Fatal(err)
	}
	if len(rootsUnder(p, f.base)) != 1 {
		t.Errorf("rewritten commondir widened the run: %v", p.Writable)
	}
}

// TestResolveHiddenThroughSymlinkRefused: ~/.kube -> dotfiles/kube with
// $HOME writable refuses; with $HOME read-only the real target is hidden.
func TestResolveHiddenThroughSymlinkRefused(t *testing.T) {
	f := newFixture(t)
	mustMkdir(t, filepath.Join(f.home, "dotfiles", "kube"))
	if err := os.Symlink("dotfiles/kube", filepath.Join(f.home, ".kube")); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(Request{}, f.host(f.home))
	var unsafe *UnsafeError
	if !errors.As(err, &unsafe) || !strings.Contains(unsafe.Msg, filepath.Join(f.home, ".kube")) {
		t.Errorf("hidden path through a symlink in a writable home: %v, want an UnsafeError", err)
	}
	p, err := Resolve(Request{}, f.host(f.proj))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range p.Hidden {
		found = found || (h.Path == filepath.Join(f.home, "dotfiles", "kube") && h.Exists)
	}
	if !found {
		t.Errorf("the symlink's target is not hidden: %v", p.Hidden)
	}
}

// TestCheckInput: a file zsandbox obeys must not be writable by a run.
func TestCheckInput(t *testing.T) {
	f := newFixture(t)
	p, err := Resolve(Request{}, f.host(f.proj))
	if err != nil {
		t.Fatal(err)
	}
	inCwd := filepath.Join(f.proj, "profile.json")
	private := filepath.Join(f.home, "profile.json")
	shared := filepath.Join(privateTmp(t), "profile.json")
	open := filepath.Join(f.base, "open", "profile.json")
	mustMkdir(t, filepath.Dir(open))
	if err := os.Chmod(filepath.Dir(open), 0o777); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{inCwd, private, shared, open} {
		writeFile(t, file, "{}")
	}
	for file, ok := range map[string]bool{inCwd: false, private: true, shared: false, open: false} {
		if err := p.CheckInput("--seccomp-profile", file, false); (err == nil) != ok {
			t.Errorf("CheckInput(%s) = %v, want ok=%v", file, err, ok)
		}
	}
	if err := p.CheckInput("settings", inCwd, true); err != nil {
		t.Errorf("CheckInput(rootsOK) of a file in cwd: %v", err)
	}
}

func privateTmp(t *testing.T) string {
	d, err := os.MkdirTemp("/tmp", "zsandbox-policy-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// TestResolveSubmoduleGitDir: an absorbed submodule's git dir (in the
// superproject's .git/modules) becomes a root from inside the submodule
// when its core.worktree names the submodule; not when it names another
// directory.
func TestResolveSubmoduleGitDir(t *testing.T) {
	f := newFixture(t)
	super := filepath.Join(f.home, "super")
	mods := filepath.Join(super, ".git", "modules", "sub")
	sub := filepath.Join(super, "sub")
	mustMkdir(t, sub)
	makeGitDir(t, mods)
	writeFile(t, filepath.Join(sub, ".git"), "gitdir: ../.git/modules/sub\n")
	for worktree, want := range map[string]bool{"../../../sub": true, f.proj: false} {
		writeFile(t, filepath.Join(mods, "config"), "[core]\n\tbare = false\n\tworktree = "+worktree+"\n")
		p, err := Resolve(Request{}, f.host(sub))
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Contains(p.WritablePaths(), mods)
		if got != want {
			t.Errorf("core.worktree = %s: git dir writable = %v, want %v (%v)", worktree, got, want, p.Writable)
		}
	}
}

// TestResolveRepoInOthersDirIgnored: a .git above the cwd in a directory
// other users may write neither widens nor is protected (no placeholder
// that could fail in someone else's directory).
func TestResolveRepoInOthersDirIgnored(t *testing.T) {
	f := newFixture(t)
	top := filepath.Join(f.base, "shared")
	mustMkdir(t, filepath.Join(top, ".git"))
	mustMkdir(t, filepath.Join(top, "work"))
	if err := os.Chmod(top, 0o777); err != nil {
		t.Fatal(err)
	}
	p, err := Resolve(Request{}, f.host(filepath.Join(top, "work")))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Writable {
		if Within(r.Path, filepath.Join(top, ".git")) {
			t.Errorf("a .git in a world-writable directory widened the run: %v", r)
		}
	}
	for _, pr := range p.Protected {
		if Within(pr.Path, filepath.Join(top, ".git")) {
			t.Errorf("a .git in a world-writable directory is protected: %v", pr)
		}
	}
}
