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
	// Root is the innermost writable root that contains Path; the
	// directories between them are pinned so they cannot be renamed aside.
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
func (p *Policy) resolveProtected() error {
	seen := map[string]bool{}
	for _, c := range p.protectedCandidates() {
		root, ok := p.innermostRoot(c)
		if !ok || seen[c] || p.explicitlyWritable(c) || p.masked(c) {
			continue
		}
		seen[c] = true
		pr, err := protectedFact(c, root)
		if err != nil {
			return err
		}
		p.Protected = append(p.Protected, pr)
	}
	sort.Slice(p.Protected, func(i, j int) bool { return p.Protected[i].Path < p.Protected[j].Path })
	return nil
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

// masked reports whether an existing hidden path covers path.
func (p *Policy) masked(path string) bool {
	for _, h := range p.Hidden {
		if h.Exists && Within(path, h.Path) {
			return true
		}
	}
	return false
}

// innermostRoot returns the deepest writable root containing path.
func (p *Policy) innermostRoot(path string) (string, bool) {
	best := ""
	for _, r := range p.Writable {
		if Within(path, r.Path) && path != r.Path && len(r.Path) > len(best) {
			best = r.Path
		}
	}
	return best, best != ""
}

// explicitlyWritable: a user who names a protected path, or a path inside
// it, with --writable (or its environment/settings forms) gets it writable.
func (p *Policy) explicitlyWritable(path string) bool {
	for _, r := range p.Writable {
		switch r.Source {
		case SourceFlag, SourceEnv, SourceSettings:
			if Within(r.Path, path) {
				return true
			}
		}
	}
	return false
}

// protectedFact checks path and each directory between it and root. A
// symlink there could be swapped by the command to move the protection
// off the file that matters, so it is refused.
func protectedFact(path, root string) (Protected, error) {
	rel := strings.TrimPrefix(path, root+"/")
	cur := root
	for _, part := range strings.Split(rel, "/") {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return Protected{Path: path, Root: root}, nil
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return Protected{}, &UnsafeError{
				Msg:  fmt.Sprintf("protected path %q: %q is a symlink inside the writable root %q; the command could swap it", path, cur, root),
				Hint: fmt.Sprintf("name it with --writable %s to make it writable on purpose, or replace the symlink with the file it points to", path),
			}
		}
	}
	return Protected{Path: path, Root: root, Exists: true}, nil
}

// ProtectedPaths returns the protected paths, in policy order.
func (p *Policy) ProtectedPaths() []string {
	out := make([]string, len(p.Protected))
	for i, pr := range p.Protected {
		out[i] = pr.Path
	}
	return out
}
