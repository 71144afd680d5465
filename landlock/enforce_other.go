//go:build !linux

package landlock

import (
	"errors"

	"github.com/zsandbox/zsandbox/exit"
)

// errNotLinux is returned by Enforce on every OS but Linux.
var errNotLinux = errors.New("landlock: only available on Linux")

// ABI returns 0: Landlock is a Linux feature.
func ABI() int { return 0 }

// Enforce does nothing for mode off and fails otherwise: Landlock is a Linux
// feature, and the other platforms have their own backend.
func Enforce(c Config) (abi int, err error) {
	if _, err := ParseMode(string(c.Mode)); err != nil {
		return 0, err
	}
	if c.Mode == ModeOff {
		return 0, nil
	}
	return 0, errNotLinux
}

// Stage2 fails (127): stage 2 only exists on Linux.
func Stage2(args []string) error {
	return exit.NotRun("stage 2 runs only on Linux")
}
