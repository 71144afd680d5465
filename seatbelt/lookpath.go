package seatbelt

import (
	"strings"

	"github.com/zsandbox/zsandbox/policy"
)

// defaultPath is execvp's search path when the environment has no PATH.
const defaultPath = "/usr/bin:/bin:/usr/sbin:/sbin"

// lookPath finds the command the way the sandboxed execvp would, using the
// command's environment (not zsandbox's) and its working directory
// (policy.LookPath, with execvp's default PATH when env has none).
func lookPath(name string, env []string, dir string) (string, error) {
	return policy.LookPath(name, pathOf(env), dir)
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
