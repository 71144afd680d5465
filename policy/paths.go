package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Expand turns a user-written path into an absolute, clean one: "~" and
// "~/x" expand to home, a relative path resolves against cwd. Symlinks are
// not resolved here.
func Expand(p, home, cwd string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("empty path")
	case strings.ContainsRune(p, 0):
		return "", errors.New("path contains a NUL byte")
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(home, p[2:])
	case strings.HasPrefix(p, "~"):
		return "", fmt.Errorf("%q: only ~ and ~/path are supported, not ~user", p)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	p = filepath.Clean(p)
	return p, checkLength(p)
}

// Linux's limits on a path the kernel will take (PATH_MAX counts the NUL)
// and on one name in it; macOS's are shorter still.
const (
	pathMax = 4096
	nameMax = 255
)

// checkLength refuses a path no system call would accept, so that it is a
// usage error naming the limit rather than a "no such directory" or a
// sandbox that fails half built.
func checkLength(p string) error {
	if len(p) >= pathMax {
		return fmt.Errorf("path of %d bytes is longer than the system allows (PATH_MAX, %d bytes)", len(p), pathMax-1)
	}
	for _, name := range strings.Split(p, "/") {
		if len(name) > nameMax {
			return fmt.Errorf("%q: a name in the path is longer than %d bytes (NAME_MAX)", p, nameMax)
		}
	}
	return nil
}

// Canonical resolves every symlink in an absolute path. It fails when the
// path does not exist.
func Canonical(p string) (string, error) {
	return newSymlinks().canonical(p)
}

// CanonicalLoose resolves the symlinks of the longest existing prefix of p
// and appends the rest unchanged, so a path that does not exist yet still
// lands where the kernel would put it.
func CanonicalLoose(p string) string {
	return newSymlinks().walk(filepath.Clean(p), 0).path
}

// symlinks resolves paths as the kernel would and remembers every prefix it
// has resolved, so n paths under one directory cost about n lstat calls,
// not n times their depth. One value serves one Resolve: the file system
// may change between runs.
type symlinks struct{ seen map[string]resolved }

type resolved struct {
	path   string // symlink-free
	exists bool
	isDir  bool
	// links are the symlinks followed on the way, in order: the trust
	// rules (trust.go) judge each one.
	links []string
}

// maxLinks bounds symlink chains, as the kernel's ELOOP does.
const maxLinks = 40

func newSymlinks() *symlinks { return &symlinks{seen: map[string]resolved{}} }

func (s *symlinks) canonical(p string) (string, error) {
	r := s.walk(filepath.Clean(p), 0)
	if !r.exists {
		return "", fs.ErrNotExist
	}
	return r.path, nil
}

// walk resolves the clean absolute path p.
func (s *symlinks) walk(p string, depth int) resolved {
	if p == "/" || !filepath.IsAbs(p) {
		return resolved{path: p, exists: p == "/", isDir: p == "/"}
	}
	if r, ok := s.seen[p]; ok {
		return r
	}
	parent := s.walk(filepath.Dir(p), depth)
	r := resolved{path: filepath.Join(parent.path, filepath.Base(p)), links: parent.links}
	if parent.exists {
		r = s.leaf(r.path, parent.links, depth)
	}
	s.seen[p] = r
	return r
}

// leaf resolves the last component of full, whose parent is symlink-free
// and was reached through links.
func (s *symlinks) leaf(full string, links []string, depth int) resolved {
	fi, err := os.Lstat(full)
	switch {
	case err != nil:
		return resolved{path: full, links: links}
	case fi.Mode()&os.ModeSymlink == 0:
		return resolved{path: full, exists: true, isDir: fi.IsDir(), links: links}
	case depth >= maxLinks:
		return resolved{path: full, links: links}
	}
	target, err := os.Readlink(full)
	if err != nil {
		return resolved{path: full, links: links}
	}
	links = append(append([]string(nil), links...), full)
	start := filepath.Dir(full)
	if filepath.IsAbs(target) {
		start = "/"
	}
	r := s.follow(start, target, depth+1)
	r.links = append(links, r.links...)
	return r
}

// follow resolves target component by component from the symlink-free
// directory start: ".." after a symlinked component is its real parent,
// as the kernel has it, not the lexical one.
func (s *symlinks) follow(start, target string, depth int) resolved {
	cur := resolved{path: start, exists: true, isDir: true}
	var links []string
	for _, part := range strings.Split(target, "/") {
		switch {
		case part == "" || part == ".":
			continue
		case !cur.exists:
			cur.path = filepath.Join(cur.path, part)
			continue
		case part == "..":
			cur = resolved{path: filepath.Dir(cur.path), exists: true, isDir: true}
			continue
		}
		cur = s.walk(filepath.Join(cur.path, part), depth)
		links = append(links, cur.links...)
	}
	cur.links = links
	return cur
}

// Within reports whether p is root or lies beneath it, comparing whole path
// components ("/repo-evil" is not within "/repo").
func Within(p, root string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	// No root+"/" concatenation: this runs for every path pair in large
	// policies, and must not allocate.
	return strings.HasPrefix(p, root) && (len(p) == len(root) || p[len(root)] == '/')
}

// pathSet is a set of clean absolute paths, queried by walking up from a
// path: O(depth) instead of O(len(set)).
type pathSet map[string]bool

// under reports whether p or one of its ancestors is in the set.
func (s pathSet) under(p string) bool {
	for {
		if s[p] {
			return true
		}
		if p == "/" || p == "." || p == "" {
			return false
		}
		p = filepath.Dir(p)
	}
}

// add puts p in the set and returns the set.
func (s pathSet) add(p string) pathSet {
	s[p] = true
	return s
}

// WithinAny reports whether p is within any of roots.
func WithinAny(p string, roots []string) bool {
	for _, r := range roots {
		if Within(p, r) {
			return true
		}
	}
	return false
}
