package policy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LookPath finds the command name the way execvp inside the sandbox will,
// on the command's own PATH (path; the caller supplies the platform's
// default when the environment has none) from its working directory dir,
// so that zsandbox can report a missing command itself (127) instead of
// an exit status of bwrap or sandbox-exec. A name with a slash is only
// checked for existence, relative to dir, and returned as written; an
// empty or relative PATH entry is taken relative to dir. The error wraps
// exec.ErrNotFound.
func LookPath(name, path, dir string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("command %q: %w", name, exec.ErrNotFound)
	}
	if strings.Contains(name, "/") {
		if _, err := os.Stat(absIn(dir, name)); err != nil {
			return "", fmt.Errorf("command %q: %w", name, exec.ErrNotFound)
		}
		return name, nil
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if p := filepath.Join(absIn(dir, d), name); IsExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("command %q: %w", name, exec.ErrNotFound)
}

// absIn resolves p against dir unless it is absolute.
func absIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// IsExecutable reports whether p is a regular file with an execute bit.
func IsExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
