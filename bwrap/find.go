package bwrap

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/zsandbox/zsandbox/policy"
)

// SystemPath is where distributions install bubblewrap.
const SystemPath = "/usr/bin/bwrap"

// ErrNotFound means no usable bwrap binary was found.
var ErrNotFound = errors.New("bubblewrap (bwrap) is not installed")

// Find returns the bwrap binary to run: SystemPath first, then the PATH
// entries that the sandboxed command cannot write. A bwrap planted in cwd or
// any writable root would run outside the sandbox with the caller's rights,
// so such directories are never searched, nor are relative PATH entries.
func Find(pathEnv string, writable []string) (string, error) {
	if isExecutable(SystemPath) {
		return SystemPath, nil
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(dir) {
			continue
		}
		dir = policy.CanonicalLoose(filepath.Clean(dir))
		if policy.WithinAny(dir, writable) {
			continue
		}
		if c := filepath.Join(dir, "bwrap"); isExecutable(c) {
			return c, nil
		}
	}
	return "", ErrNotFound
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// LookPath finds argv0 the way execvp inside the sandbox will, using the
// command's own PATH; it lets zsandbox say "command not found" (127) itself
// instead of leaving bwrap's exit 1.
func LookPath(argv0, pathEnv, cwd string) (string, error) {
	if strings.Contains(argv0, "/") {
		p := argv0
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", err
		}
		return p, nil
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cwd, dir)
		}
		if c := filepath.Join(dir, argv0); isExecutable(c) {
			return c, nil
		}
	}
	return "", os.ErrNotExist
}
