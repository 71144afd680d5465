//go:build !linux && !darwin

package sandbox

import (
	"runtime"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/plan"
)

// execute refuses: this platform has no sandbox backend yet.
func Exec(plan.Plan, bool) error {
	return exit.NotRun("no sandbox backend for " + runtime.GOOS)
}
