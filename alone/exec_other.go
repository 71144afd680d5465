//go:build !linux

package alone

import (
	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/landlock"
)

// Exec fails: the Landlock-only backend is a Linux feature.
func Exec(rs landlock.Ruleset, bpf []byte, argv, env []string, dir string) error {
	if len(argv) == 0 {
		return exit.NotRunErr(errNoCommand)
	}
	return exit.NotRun("--backend landlock: only available on Linux")
}

// Child fails (127): the Landlock-only backend is a Linux feature.
func Child([]string) error {
	return exit.NotRun("--backend landlock: only available on Linux")
}
