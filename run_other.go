//go:build !linux && !darwin

package main

import (
	"runtime"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/policy"
)

// execute refuses: this platform has no sandbox backend yet.
func execute(_ *policy.Policy, _ []string, _ runConfig) error {
	return exit.Sandbox("no sandbox backend for " + runtime.GOOS + "; the command did not run")
}
