package seatbelt

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// defaultPath is execvp's search path when the environment has no PATH.
const defaultPath = "/usr/bin:/bin:/usr/sbin:/sbin"

// lookPath finds the command the way the sandboxed execvp would, using the
// command's environment (not zsandbox's) and its working directory, so a
// missing command is reported as such (exit 127) instead of as an exit
// status of sandbox-exec. A name containing a slash is only checked for
// existence, relative to dir.
func lookPath(name string, env []string, dir string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("command %q: %w", name, exec.ErrNotFound)
	}
	if strings.Contains(name, "/") {
		if _, err := os.Stat(absIn(dir, name)); err != nil {
			return "", fmt.Errorf("command %q: %w", name, exec.ErrNotFound)
		}
		return name, nil
	}
	for _, d := range filepath.SplitList(pathOf(env)) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(absIn(dir, d), name)
		if isExecutable(p) {
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

// pathOf returns the last PATH in env, or execvp's default.
func pathOf(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "PATH="); ok {
			return v
		}
	}
	return defaultPath
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
