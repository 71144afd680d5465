package main

import (
	"errors"
	"fmt"

	"github.com/zsandbox/zsandbox/policy"
)

// Exit statuses of zsandbox itself; otherwise it exits with the command's.
const (
	exitUsage   = 2   // unknown flag, bad value, no command
	exitSandbox = 127 // the sandbox could not be built, or the command was not found; nothing ran
)

// exitError carries an exit status and what to tell the user. A command
// that ran and exited non-zero is an exitError with no message.
type exitError struct {
	code  int
	msg   string
	hints []string
}

func (e *exitError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

func sandboxError(msg string, hints ...string) error {
	return &exitError{code: exitSandbox, msg: msg, hints: hints}
}

func commandStatus(code int) error {
	if code == 0 {
		return nil
	}
	return &exitError{code: code}
}

// exitCode is the one place errors become exit statuses.
func exitCode(err error) int {
	var ee *exitError
	var ue *policy.UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		return exitUsage
	}
	// Anything else (policy.UnsafeError included) happened before the
	// command ran.
	return exitSandbox
}
