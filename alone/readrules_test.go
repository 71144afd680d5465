package alone

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/policy"
)

// fakeFS is a file tree: path -> kind ("d" dir, "f" file, "l" symlink).
type fakeFS map[string]string

func (fs fakeFS) exists(p string) (isDir, ok bool) {
	k, found := fs[p]
	return k == "d", found && k != "l"
}

func (fs fakeFS) list(dir string) []string {
	var out []string
	for p := range fs {
		if p != "/" && filepath.Dir(p) == dir {
			out = append(out, filepath.Base(p))
		}
	}
	return out
}

// tree builds a fakeFS from paths; a trailing "/" marks a directory, "@" a
// symlink. Parents are added as directories.
func tree(paths ...string) fakeFS {
	fs := fakeFS{"/": "d"}
	for _, p := range paths {
		kind := "f"
		switch {
		case strings.HasSuffix(p, "/"):
			kind, p = "d", strings.TrimSuffix(p, "/")
		case strings.HasSuffix(p, "@"):
			kind, p = "l", strings.TrimSuffix(p, "@")
		}
		fs[p] = kind
		for d := filepath.Dir(p); d != "/"; d = filepath.Dir(d) {
			fs[d] = "d"
		}
	}
	return fs
}

var home = tree("/bin/", "/etc/passwd", "/home/other/", "/home/u/.ssh/id_rsa", "/home/u/.netrc",
	"/home/u/.bashrc", "/home/u/proj/main.go", "/home/u/.ssh-backup/", "/home/u/.config/git/", "/tmp/")

func TestReadRules(t *testing.T) {
	tests := []struct {
		name   string
		fs     fakeFS
		hidden []string
		want   []string // granted paths; a trailing "/" marks a directory rule
	}{
		{"nothing hidden", home, nil, []string{"//"}},
		{"a hidden directory", home, []string{"/home/u/.ssh"}, []string{
			"/bin/", "/etc/", "/home/other/", "/home/u/.bashrc", "/home/u/.config/", "/home/u/.netrc",
			"/home/u/.ssh-backup/", "/home/u/proj/", "/tmp/"}},
		{"a hidden file and a directory in the same place", home, []string{"/home/u/.ssh", "/home/u/.netrc"}, []string{
			"/bin/", "/etc/", "/home/other/", "/home/u/.bashrc", "/home/u/.config/",
			"/home/u/.ssh-backup/", "/home/u/proj/", "/tmp/"}},
		{"nested hidden paths", home, []string{"/home/u/.config/git", "/home/u/.config"}, []string{
			"/bin/", "/etc/", "/home/other/", "/home/u/.bashrc", "/home/u/.netrc", "/home/u/.ssh/",
			"/home/u/.ssh-backup/", "/home/u/proj/", "/tmp/"}},
		{"deeper hidden path", home, []string{"/home/u/.config/git"}, []string{
			"/bin/", "/etc/", "/home/other/", "/home/u/.bashrc", "/home/u/.netrc", "/home/u/.ssh/",
			"/home/u/.ssh-backup/", "/home/u/proj/", "/tmp/"}},
		{"missing hidden path still cuts its parent", home, []string{"/home/u/.aws"}, []string{
			"/bin/", "/etc/", "/home/other/", "/home/u/.bashrc", "/home/u/.config/", "/home/u/.netrc",
			"/home/u/.ssh/", "/home/u/.ssh-backup/", "/home/u/proj/", "/tmp/"}},
		{"missing parent: cut down to the last existing directory", home, []string{"/home/u/.kube/config"}, []string{
			"/bin/", "/etc/", "/home/other/", "/home/u/.bashrc", "/home/u/.config/", "/home/u/.netrc",
			"/home/u/.ssh/", "/home/u/.ssh-backup/", "/home/u/proj/", "/tmp/"}},
		{"hidden path below a file", home, []string{"/etc/passwd/x"}, []string{
			"/bin/", "/etc/passwd", "/home/", "/tmp/"}},
		{"unclean path", home, []string{"/home/u/../u/.ssh/"}, []string{
			"/bin/", "/etc/", "/home/other/", "/home/u/.bashrc", "/home/u/.config/", "/home/u/.netrc",
			"/home/u/.ssh-backup/", "/home/u/proj/", "/tmp/"}},
		{"everything hidden", home, []string{"/"}, nil},
		{"a symlink sibling gets no rule (it would land on its target)", tree("/home/u/.ssh/", "/home/u/link@", "/home/u/proj/"),
			[]string{"/home/u/.ssh"}, []string{"/home/u/proj/"}},
	}
	for _, tt := range tests {
		rules, err := ReadRules(tt.hidden, tt.fs.exists, tt.fs.list)
		if err != nil {
			t.Errorf("ReadRules(%s): %v", tt.name, err)
			continue
		}
		var got []string
		for _, r := range rules {
			switch r.Access {
			case landlock.ReadAccess:
				got = append(got, r.Path+"/")
			case landlock.ReadAccess & landlock.FileAccess:
				got = append(got, r.Path)
			default:
				t.Errorf("ReadRules(%s): %s gets %s", tt.name, r.Path, r.Access)
			}
		}
		if diff := cmp.Diff(got, tt.want); diff != "" {
			t.Errorf("ReadRules(%s) mismatch (-got +want):\n%s", tt.name, diff)
		}
	}
}

func TestReadRulesRejectsRelative(t *testing.T) {
	_, err := ReadRules([]string{".ssh"}, home.exists, home.list)
	if err == nil || err.Error() != `hidden path ".ssh": not an absolute path` {
		t.Errorf("err = %v", err)
	}
}

// TestReadRulesInvariants checks random trees and hidden sets: no rule is
// on, below or (as a directory) above a hidden path, and every other
// existing path that is not a directory above a hidden path is covered by
// exactly one rule.
func TestReadRulesInvariants(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 500; i++ {
		fs := randomTree(r)
		var all []string
		for p := range fs {
			all = append(all, p)
		}
		sort.Strings(all)
		var hidden []string
		for j := r.Intn(4); j >= 0; j-- {
			h := all[r.Intn(len(all))]
			if r.Intn(4) == 0 {
				h += "/missing"
			}
			hidden = append(hidden, h)
		}
		rules, err := ReadRules(hidden, fs.exists, fs.list)
		if err != nil {
			t.Fatal(err)
		}
		if msg := checkReadRules(fs, all, hidden, rules); msg != "" {
			t.Fatalf("hidden %q: %s\nrules %v", hidden, msg, rules)
		}
	}
}

func checkReadRules(fs fakeFS, all, hidden []string, rules []landlock.PathRule) string {
	for _, rule := range rules {
		for _, h := range hidden {
			// A rule on a file above a hidden path is fine: nothing can
			// exist beneath a file.
			if policy.Within(rule.Path, h) || policy.Within(h, rule.Path) && fs[rule.Path] == "d" {
				return fmt.Sprintf("rule %s overlaps hidden %s", rule.Path, h)
			}
		}
	}
	for _, p := range all {
		if _, ok := fs.exists(p); !ok {
			continue // symlinks need no rule
		}
		hiddenOrCut := false
		for _, h := range hidden {
			hiddenOrCut = hiddenOrCut || policy.Within(p, h) || policy.Within(h, p) && fs[p] == "d"
		}
		covering := 0
		for _, rule := range rules {
			if policy.Within(p, rule.Path) {
				covering++
			}
		}
		if hiddenOrCut && covering != 0 || !hiddenOrCut && covering != 1 {
			return fmt.Sprintf("%s: hidden or cut %v, covered by %d rules", p, hiddenOrCut, covering)
		}
	}
	return ""
}

func randomTree(r *rand.Rand) fakeFS {
	fs := fakeFS{"/": "d"}
	dirs := []string{"/"}
	for i := 0; i < 30; i++ {
		parent := dirs[r.Intn(len(dirs))]
		p := filepath.Join(parent, fmt.Sprintf("n%d", i))
		switch r.Intn(5) {
		case 0, 1:
			fs[p] = "d"
			dirs = append(dirs, p)
		case 2:
			fs[p] = "l"
		default:
			fs[p] = "f"
		}
	}
	return fs
}
