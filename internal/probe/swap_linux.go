package probe

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// swapLoop exchanges two names over and over (renameat2 RENAME_EXCHANGE)
// for the given number of milliseconds: a directory and a symlink, to race
// another zsandbox that is resolving and mounting the directory.
func swapLoop(a string, rest []string) error {
	if len(rest) != 2 {
		return fmt.Errorf("usage: attack swap A B MILLISECONDS")
	}
	var ms int
	fmt.Sscan(rest[1], &ms)
	deadline := time.Now().Add(time.Duration(ms) * time.Millisecond)
	// An even number of exchanges leaves the names as they were.
	for n := 0; n%2 == 1 || time.Now().Before(deadline); n++ {
		if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, rest[0], unix.RENAME_EXCHANGE); err != nil {
			return fmt.Errorf("after %d swaps: %w", n, err)
		}
	}
	return nil
}
