//go:build !linux

package landlock

import "errors"

// ExecAlone fails: the Landlock-only backend is a Linux feature.
func ExecAlone(c AloneConfig, bpf []byte, argv, env []string, dir string) error {
	if len(argv) == 0 {
		return errNoCommand
	}
	return errors.New("--backend landlock: only available on Linux")
}
