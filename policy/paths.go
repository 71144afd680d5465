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
	return filepath.Clean(p), nil
}

// Canonical resolves every symlink in an absolute path. It fails when the
// path does not exist.
func Canonical(p string) (string, error) {
	return filepath.EvalSymlinks(p)
}

// CanonicalLoose resolves the symlinks of the longest existing prefix of p
// and appends the rest unchanged, so a path that does not exist yet still
// lands where the kernel would put it.
func CanonicalLoose(p string) string {
	if c, err := filepath.EvalSymlinks(p); err == nil {
		return c
	}
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if dir == p || base == "" {
		return p
	}
	return filepath.Join(CanonicalLoose(dir), base)
}

// Within reports whether p is root or lies beneath it, comparing whole path
// components ("/repo-evil" is not within "/repo").
func Within(p, root string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == root || strings.HasPrefix(p, root+"/")
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

// isNotExist reports a missing path, including a path through a file.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, os.ErrNotExist) ||
		strings.Contains(err.Error(), "not a directory")
}
