package policy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
		want []Protected
	}{
		{"repo in cwd", f.proj, nil, []Protected{
			{filepath.Join(repoGit, "config"), f.proj, true},
			{filepath.Join(repoGit, "hooks"), f.proj, true},
		}},
		{"explicit writable hooks opts out", f.proj, []Path{{".git/hooks", SourceFlag}}, []Protected{
			{filepath.Join(repoGit, "config"), f.proj, true},
		}},
		{"linked worktree", f.wt, nil, []Protected{
			{filepath.Join(f.common, "config"), f.common, false},
			{filepath.Join(f.common, "hooks"), f.common, false},
			{filepath.Join(f.common, "worktrees", "wt", "config.worktree"), f.common, false},
			{filepath.Join(f.wt, ".git"), f.wt, true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Resolve(Request{Writable: tc.ask}, f.host(tc.cwd))
			if err != nil {
				t.Fatal(err)
			}
			// The fixture may lie inside a default root (/tmp): Root is
			// then that outermost root; the test checks that rule and
			// compares the rest.
			var got []Protected
			for _, pr := range p.Protected {
				if pr.Root != outermost(p, pr.Path) {
					t.Errorf("%s: root %s, want the outermost writable root %s", pr.Path, pr.Root, outermost(p, pr.Path))
				}
				if Within(pr.Path, f.proj) || Within(pr.Path, f.wt) || Within(pr.Path, f.common) {
					pr.Root = ""
					got = append(got, pr)
				}
			}
			for i := range tc.want {
				tc.want[i].Root = ""
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Protected(%s) mismatch (-got +want):\n%s", tc.name, diff)
			}
		})
	}
}

func TestResolveProtectedHomeWhenWritable(t *testing.T) {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.home, ".bashrc"), "")
	p, err := Resolve(Request{}, f.host(f.home))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, pr := range p.Protected {
		got[pr.Path] = pr.Exists
	}
	for name, exists := range map[string]bool{".bashrc": true, ".zshenv": false, ".gitconfig": false, ".config/git": false} {
		if e, ok := got[filepath.Join(f.home, name)]; !ok || e != exists {
			t.Errorf("~/%s: listed=%v exists=%v, want listed, exists=%v", name, ok, e, exists)
		}
	}
	// The hidden ~/.config/git/credentials lies under the protected (and
	// missing) ~/.config/git: a placeholder file there leaves no directory
	// to make its own placeholder in, and none is needed.
	if _, ok := got[filepath.Join(f.home, ".config/git/credentials")]; ok {
		t.Errorf("~/.config/git/credentials protected under the protected ~/.config/git: %v", p.Protected)
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
}

func TestResolveCwdInsideHiddenRefused(t *testing.T) {
	f := newFixture(t)
	_, err := Resolve(Request{}, f.host(filepath.Join(f.home, ".ssh")))
	var unsafe *UnsafeError
	if !errors.As(err, &unsafe) {
		t.Fatalf("Resolve with cwd inside hidden ~/.ssh: %v, want UnsafeError", err)
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
