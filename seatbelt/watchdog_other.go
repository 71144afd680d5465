//go:build !unix

package seatbelt

import "os"

// Watchdog has nothing to watch where there is no sandbox-exec: exit 127.
func Watchdog([]string) { os.Exit(notRun) }
