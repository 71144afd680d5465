//go:build !linux

package netns

import (
	"fmt"
	"os"
)

// Role exists only on Linux.
func Role([]string) {
	fmt.Fprintln(os.Stderr, "zsandbox: error: "+RoleArg+": Linux only")
	os.Exit(127)
}
