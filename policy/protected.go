package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Protected is a path kept read-only although a writable root contains it,
// because code planted there runs later outside the sandbox (git hooks and
// config, shell start-up files, an agent's or editor's project config).
type Protected struct {
	Path string `json:"path"`
	// Root is the outermost writable root that contains Path. Every
	// directory between them is pinned so none can be renamed aside: with
	// a nested root (cwd inside --writable PARENT, or inside /tmp), a
	// rename above the inner root would carry the repository away.
	Root   string `json:"root"`
	Exists bool   `json:"exists"`
	// IsDir says the entry is a directory; a missing one is kept from
	// being created by an empty read-only directory for the run (git
	// ignores empty directories, so a project's status stays clean).
	IsDir bool `json:"isDir"`
	// Source says why the path is protected, in the words explain prints.
	Source Source `json:"source"`
	// Why says what the path is for; the hint for a refused write prints it.
	Why string `json:"why"`
	// Anchor is set for a missing path the caller cannot create: its
	// nearest existing ancestor, which the caller can neither write nor
	// chmod. No placeholder is made (none could be); instead the anchor
	// and every directory between it and Root are pinned, because a
	// command that renamed or removed the anchor (its parent is writable)
	// could make the path in a fresh directory put in its place.
	Anchor string `json:"anchor,omitempty"`
	// Content is what the placeholder for a missing file holds: git dies
	// on an empty commondir, and "." points it at its own git directory,
	// which is what no commondir means.
	Content string `json:"-"`
}

// protectable is a path that is protected if a writable root contains it.
type protectable struct {
	path    string
	dir     bool
	source  Source
	why     string
	content string
	// existing: protect only a path that exists (an empty placeholder
	// would break git, and a missing one is not consulted).
	existing bool
}

// UnsafeError means the sandbox cannot keep a promise on this host as it
// is (for example a protected path is a symlink inside a writable root, so
// the command could swap it). The command must not run: exit 127.
type UnsafeError struct{ Msg, Hint string }

func (e *UnsafeError) Error() string { return e.Msg }

// resolveProtected lists the protected paths that lie inside writable
// roots: the built-in candidates, zsandbox's own binary (exe) and the
// user's --protect entries. Only known locations are examined: no
// directory is walked.
func (p *Policy) resolveProtected(asked []Path, host Host, fs *symlinks, exe string) error {
	seen := map[string]bool{}
	roots, explicit, masked := pathSet{}, pathSet{}, pathSet{}
	for _, r := range p.Writable {
		roots.add(r.Path)
		if r.named() {
			// A user who names a protected path, or a path inside one,
			// gets it writable: mark the root and its ancestors. A
			// default root (the cwd, TMPDIR) opens nothing: a protected
			// path holding one stays protected, and the root with it.
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
	cands, err := p.userCandidates(asked)
	if err != nil {
		return err
	}
	if exe != "" {
		cands = append(cands, protectable{path: exe, source: SourceSelf,
			why: "zsandbox's own binary: the next run would run whatever the command put there"})
	}
	builtin, err := p.protectedCandidates(host)
	if err != nil {
		return err
	}
	for _, c := range append(builtin, cands...) {
		path, root, ok := placeCandidate(c.path, roots, fs)
		if !ok || seen[path] || explicit[path] || masked.under(path) {
			continue
		}
		seen[path] = true
		c.path = path
		pr, err := protectedFact(c, root, fs)
		if err != nil {
			return err
		}
		if !pr.Exists {
			if c.existing {
				continue
			}
			if anchor, ok := creatable(pr.Path); !ok {
				pr.Anchor = anchor
			}
		}
		p.Protected = append(p.Protected, pr)
	}
	sort.Slice(p.Protected, func(i, j int) bool { return p.Protected[i].Path < p.Protected[j].Path })
	p.Protected = outermostOnly(p.Protected)
	return nil
}

// outermostOnly drops a protected path that lies under another one (a
// missing ~/.config/git/credentials under a protected ~/.config/git): the
// outer one is re-bound read-only, or is a placeholder when missing, under
// which nothing could be made. prot is sorted by path, so a parent comes
// before its children.
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

// placeCandidate finds the writable root holding path: as written, or,
// when a symlink above every root leads into one, as resolved (a symlink
// outside the roots cannot be swapped by the command).
func placeCandidate(path string, roots pathSet, fs *symlinks) (string, string, bool) {
	if root, ok := outermostRoot(path, roots); ok {
		return path, root, true
	}
	res := fs.walk(path, 0).path
	root, ok := outermostRoot(res, roots)
	return res, root, ok
}

// protectedCandidates returns every built-in candidate: git's files of
// each repository zsandbox knows of, the start-up files of home, the
// project config at each project top, PATH directories, and hidden paths
// that do not exist yet.
func (p *Policy) protectedCandidates(host Host) ([]protectable, error) {
	git, tops, err := p.gitCandidates(host)
	if err != nil {
		return nil, err
	}
	out := append(git, homeCandidates(p.Home, host)...)
	out = append(out, projectCandidates(append(append(tops, p.Cwd, p.Home), p.namedDirs()...))...)
	out = append(out, pathCandidates(host.Getenv("PATH"), p.Home, p.Cwd)...)
	// A hidden path that does not exist yet has no mask; inside a writable
	// root the command could create it (~/.ssh/authorized_keys, a settings
	// file that widens the next run), so it is protected from creation.
	for _, h := range p.Hidden {
		if !h.Exists {
			out = append(out, protectable{path: h.Path, source: SourceHiddenAbsent,
				why: "a hidden path (credentials or zsandbox's settings) that must not be created"})
		}
	}
	return out, nil
}

// named says the user named the root (--writable, ZSANDBOX_WRITABLE,
// settings): not a default one.
func (r Root) named() bool {
	return r.Source == SourceFlag || r.Source == SourceEnv || r.Source == SourceSettings
}

// namedDirs are the directories outside the cwd the user named as
// writable roots: each may be a project top (another checkout the agent
// works in next), whose agent and editor config a command must not plant.
// One inside the cwd (a build directory, --writable .claude) is part of
// the cwd's project.
func (p *Policy) namedDirs() []string {
	var out []string
	for _, r := range p.Writable {
		if r.named() && !p.FileRoots[r.Path] && !Within(r.Path, p.Cwd) {
			out = append(out, r.Path)
		}
	}
	return out
}

// userCandidates turns --protect, ZSANDBOX_PROTECT and settings entries
// into candidates.
func (p *Policy) userCandidates(asked []Path) ([]protectable, error) {
	var out []protectable
	for _, a := range asked {
		abs, err := Expand(a.Path, p.Home, p.Cwd)
		if err != nil {
			return nil, usagef("protected path %q: %v", a.Path, err)
		}
		if abs == "/" {
			return nil, usagef("protected path %q: cannot protect the root directory", a.Path)
		}
		out = append(out, protectable{path: abs, source: a.Source, why: "protected on request (" + string(a.Source) + ")"})
	}
	return out, nil
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
func protectedFact(c protectable, root string, fs *symlinks) (Protected, error) {
	r := fs.walk(c.path, 0)
	if r.path == c.path {
		isDir := c.dir
		if r.exists {
			isDir = r.isDir
		}
		return Protected{Path: c.path, Root: root, Exists: r.exists, IsDir: isDir,
			Source: c.source, Why: c.why, Content: c.content}, nil
	}
	link := firstSymlink(c.path, root)
	return Protected{}, &UnsafeError{
		Msg:  fmt.Sprintf("protected path %q: %q is a symlink inside the writable root %q; the command could swap it", c.path, link, root),
		Hint: fmt.Sprintf("name it with --writable %s to make it writable on purpose, or replace the symlink with the file it points to", c.path),
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
