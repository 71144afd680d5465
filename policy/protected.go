package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zsandbox/zsandbox/profiles"
)

// Protected is a path kept read-only although a writable root contains it,
// because code planted there runs later outside the sandbox (git hooks,
// git config, shell rc files).
type Protected struct {
	Path string `json:"path"`
	// Root is the outermost writable root that contains Path. Every
	// directory between them is pinned so none can be renamed aside: with
	// a nested root (cwd inside --writable PARENT, or inside /tmp), a
	// rename above the inner root would carry the repository away.
	Root   string `json:"root"`
	Exists bool   `json:"exists"`
}

// UnsafeError means the sandbox cannot keep a promise on this host as it
// is (for example a protected path is a symlink inside a writable root, so
// the command could swap it). The command must not run: exit 127.
type UnsafeError struct{ Msg, Hint string }

func (e *UnsafeError) Error() string { return e.Msg }

// resolveProtected lists the protected paths that lie inside writable
// roots. Only known locations are examined: no directory is walked.
func (p *Policy) resolveProtected(fs *symlinks) error {
	seen := map[string]bool{}
	roots, explicit, masked := pathSet{}, pathSet{}, pathSet{}
	for _, r := range p.Writable {
		roots.add(r.Path)
		if r.Source == SourceFlag || r.Source == SourceEnv || r.Source == SourceSettings {
			// A user who names a protected path, or a path inside one,
			// gets it writable: mark the root and its ancestors.
			for d := r.Path; !explicit[d]; d = filepath.Dir(d) {
				explicit.add(d)
			}
		}
	}
	for _, h := range p.Hidden {
		if h.Exists {
			masked.add(h.Path)
		}
	}
	for _, c := range p.protectedCandidates() {
		root, ok := outermostRoot(c, roots)
		if !ok || seen[c] || explicit[c] || masked.under(c) {
			continue
		}
		seen[c] = true
		pr, err := protectedFact(c, root, fs)
		if err != nil {
			return err
		}
		p.Protected = append(p.Protected, pr)
	}
	sort.Slice(p.Protected, func(i, j int) bool { return p.Protected[i].Path < p.Protected[j].Path })
	p.Protected = outermostOnly(p.Protected)
	return nil
}

// outermostOnly drops a protected path that lies under another one (a
// missing ~/.config/git/credentials under a protected ~/.config/git): the
// outer one is re-bound read-only, or is a placeholder file when missing,
// under which nothing could be made. prot is sorted by path, so a parent
// comes before its children.
func outermostOnly(prot []Protected) []Protected {
	out := prot[:0]
	kept := pathSet{}
	for _, pr := range prot {
		if !kept.under(filepath.Dir(pr.Path)) {
			kept.add(pr.Path)
			out = append(out, pr)
		}
	}
	return out
}

// protectedCandidates returns the git metadata of the repository around
// cwd and of every writable root that is a repository, and the shell and
// git start-up files in home.
func (p *Policy) protectedCandidates() []string {
	var out []string
	layouts := []GitLayout{}
	if l, ok := FindGit(p.Cwd); ok {
		layouts = append(layouts, l)
	}
	for _, r := range p.Writable {
		if l, ok := readGit(r.Path); ok {
			layouts = append(layouts, l)
		}
	}
	for _, l := range layouts {
		out = append(out, filepath.Join(l.CommonDir, "hooks"), filepath.Join(l.CommonDir, "config"))
		if l.PointerFile != "" {
			out = append(out, l.PointerFile)
		}
		if l.GitDir != l.CommonDir {
			out = append(out, filepath.Join(l.GitDir, "config.worktree"))
		}
	}
	for _, rel := range profiles.ProtectedInHome() {
		out = append(out, filepath.Join(p.Home, rel))
	}
	// A hidden path that does not exist yet has no mask; inside a writable
	// root the command could create it (~/.ssh/authorized_keys, a settings
	// file that widens the next run), so it is protected from creation.
	for _, h := range p.Hidden {
		if !h.Exists {
			out = append(out, h.Path)
		}
	}
	return out
}

// RootFinder returns a function that finds the outermost writable root
// strictly above a path (the set of roots is built once).
func (p *Policy) RootFinder() func(path string) (root string, ok bool) {
	roots := pathSet{}
	for _, r := range p.Writable {
		roots.add(r.Path)
	}
	return func(path string) (string, bool) { return outermostRoot(path, roots) }
}

// outermostRoot returns the highest writable root strictly above path.
func outermostRoot(path string, roots pathSet) (root string, ok bool) {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if roots[d] {
			root, ok = d, true
		}
		if d == "/" || d == "." {
			return root, ok
		}
	}
}

// protectedFact checks path and each directory between it and root. A
// symlink there could be swapped by the command to move the protection
// off the file that matters, so it is refused. Root is symlink-free, so
// path resolves to itself exactly when no symlink lies below root.
func protectedFact(path, root string, fs *symlinks) (Protected, error) {
	r := fs.walk(path, 0)
	if r.path == path {
		return Protected{Path: path, Root: root, Exists: r.exists}, nil
	}
	link := firstSymlink(path, root)
	return Protected{}, &UnsafeError{
		Msg:  fmt.Sprintf("protected path %q: %q is a symlink inside the writable root %q; the command could swap it", path, link, root),
		Hint: fmt.Sprintf("name it with --writable %s to make it writable on purpose, or replace the symlink with the file it points to", path),
	}
}

// firstSymlink names the symlink below root on the way to path (for the
// error message only).
func firstSymlink(path, root string) string {
	cur := root
	for _, part := range strings.Split(strings.TrimPrefix(path, root+"/"), "/") {
		cur = filepath.Join(cur, part)
		if fi, err := os.Lstat(cur); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return cur
		}
	}
	return path
}

// ProtectedPaths returns the protected paths, in policy order.
func (p *Policy) ProtectedPaths() []string {
	out := make([]string, len(p.Protected))
	for i, pr := range p.Protected {
		out[i] = pr.Path
	}
	return out
}
