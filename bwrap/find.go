package bwrap

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/zsandbox/zsandbox/policy"
)

// SystemPath is where distributions install bubblewrap.
const SystemPath = "/usr/bin/bwrap"

// ErrNotFound means no usable bwrap binary was found.
var ErrNotFound = errors.New("bubblewrap (bwrap) is not installed")

// Find returns the bwrap binary to run: SystemPath first, then the PATH
// entries. bwrap runs outside the sandbox with the caller's rights, so a
// candidate counts only when trusted(path) returns its real path: the file
// and everything above it root's alone, outside every writable root, $HOME
// and the shared roots (policy.SystemBinary). A bwrap a sandboxed command
// planted in ~/bin, in cwd or in any earlier run's writable root is never
// run; relative PATH entries are never searched.
func Find(pathEnv string, trusted func(path string) (string, error)) (string, error) {
	return find(append([]string{filepath.Dir(SystemPath)}, filepath.SplitList(pathEnv)...), trusted)
}

// find is Find over dirs, in order.
func find(dirs []string, trusted func(path string) (string, error)) (string, error) {
	var refused error
	for _, dir := range dirs {
		if !filepath.IsAbs(dir) {
			continue
		}
		c := filepath.Join(dir, "bwrap")
		if !policy.IsExecutable(c) {
			continue
		}
		real, err := trusted(c)
		if err == nil {
			return real, nil
		}
		if refused == nil {
			refused = fmt.Errorf("%w (not run: %v)", ErrNotFound, err)
		}
	}
	if refused != nil {
		return "", refused
	}
	return "", ErrNotFound
}

// LookPath finds argv0 the way execvp inside the sandbox will, using the
// command's own PATH (policy.LookPath); it lets zsandbox say "command not
// found" (127) itself instead of leaving bwrap's exit 1.
func LookPath(argv0, pathEnv, cwd string) (string, error) {
	return policy.LookPath(argv0, pathEnv, cwd)
}
