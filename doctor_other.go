//go:build !linux

package main

import (
	"os"
	"runtime"
)

// hostChecks probes this host: on macOS, for sandbox-exec.
func hostChecks() []check {
	if runtime.GOOS != "darwin" {
		return []check{{Name: "platform", Required: true, Detail: runtime.GOOS + " has no sandbox backend"}}
	}
	if _, err := os.Stat("/usr/bin/sandbox-exec"); err != nil {
		return []check{{Name: "sandbox-exec", Required: true, Detail: "/usr/bin/sandbox-exec not found",
			Fix: "zsandbox needs macOS's built-in sandbox-exec"}}
	}
	return []check{{Name: "sandbox-exec", OK: true, Required: true, Detail: "/usr/bin/sandbox-exec"}}
}
