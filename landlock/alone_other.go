//go:build !linux

package landlock

import (
	"errors"
	"os"
)

// ExecAlone fails: the Landlock-only backend is a Linux feature.
func ExecAlone(rs Ruleset, bpf []byte, argv, env []string, dir string) error {
	if len(argv) == 0 {
		return errNoCommand
	}
	return errors.New("--backend landlock: only available on Linux")
}

// Alone exits 127: the Landlock-only backend is a Linux feature.
func Alone([]string) {
	os.Stderr.WriteString("zsandbox: error: --backend landlock: only available on Linux; the command did not run\n")
	os.Exit(127)
}
