// Package exit is zsandbox's one error taxonomy and its one printer: every
// failure carries the exit status it means and what to tell the user, and
// Print writes it the way every zsandbox message looks
// ("zsandbox: error: …" then "zsandbox: hint: …" lines). Code is the one
// place errors become exit statuses.
package exit

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/zsandbox/zsandbox/policy"
)

// Exit statuses of zsandbox itself; otherwise it exits with the command's.
const (
	UsageCode   = 2   // unknown flag, bad value, no command
	SandboxCode = 127 // the sandbox could not be built, or the command was not found; nothing ran
)

// notRun ends every message of a failure before the command started.
const notRun = "; the command did not run"

// Error carries an exit status and what to tell the user. A command that
// ran and exited non-zero is an Error with no message.
type Error struct {
	Code  int
	Msg   string
	Hints []string
}

func (e *Error) Error() string { return e.Msg }

// Hinter is an error that knows how to fix itself: Print adds its hint
// line. The packages that plan and build the sandbox return such errors
// (a kernel without the Landlock ABI asked for, a policy the backend
// cannot enforce) without depending on this package.
type Hinter interface {
	error
	Hint() string
}

// Usagef is bad input: exit 2.
func Usagef(format string, args ...any) error {
	return &Error{Code: UsageCode, Msg: fmt.Sprintf(format, args...)}
}

// Sandbox is a sandbox that could not be built, with msg as it is: exit 127.
func Sandbox(msg string, hints ...string) error {
	return &Error{Code: SandboxCode, Msg: msg, Hints: hints}
}

// NotRun is Sandbox with the words that say nothing ran.
func NotRun(msg string, hints ...string) error {
	return Sandbox(msg+notRun, hints...)
}

// Interrupted is a signal that came while the sandbox was being built:
// the shell's 128+signal, with the words that say nothing ran.
func Interrupted(sig int, msg string) error {
	return &Error{Code: 128 + sig, Msg: msg + notRun}
}

// NotRunErr is NotRun for err, with its hint when it has one. An *Error
// already says what happened (a command not found after the sandbox was
// built) and is returned as it is.
func NotRunErr(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	var h Hinter
	if errors.As(err, &h) {
		return NotRun(err.Error(), h.Hint())
	}
	return NotRun(err.Error())
}

// Command is a command that could not be executed once the sandbox was
// built: code 127 when it was not found, 126 when it was found but could
// not be executed; msg as a shell says it ("NAME: command not found").
func Command(code int, msg string) error {
	return &Error{Code: code, Msg: msg}
}

// Status is how the command ended: nil for 0.
func Status(code int) error {
	if code == 0 {
		return nil
	}
	return &Error{Code: code}
}

// Code is the one place errors become exit statuses.
func Code(err error) int {
	var ee *Error
	var ue *policy.UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.Code
	case errors.As(err, &ue):
		return UsageCode
	}
	// Anything else (policy.UnsafeError included) happened before the
	// command ran.
	return SandboxCode
}

// Print writes err the way every zsandbox message looks.
func Print(w io.Writer, err error) {
	if err == nil {
		return
	}
	var unsafe *policy.UnsafeError
	if errors.As(err, &unsafe) {
		fmt.Fprintf(w, "zsandbox: error: %s%s\nzsandbox: hint: %s\n", unsafe.Msg, notRun, unsafe.Hint)
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		fmt.Fprintf(w, "zsandbox: error: %v\n", err)
		return
	}
	if e.Msg != "" {
		fmt.Fprintf(w, "zsandbox: error: %s\n", e.Msg)
	}
	for _, h := range e.Hints {
		fmt.Fprintf(w, "zsandbox: hint: %s\n", h)
	}
}

// Exit prints err (Print) and exits with its status (Code). The roles of
// the binary that run before the CLI (the stage 2, the Landlock-only
// child) end here, so that they print what the CLI would.
func Exit(err error) {
	Print(os.Stderr, err)
	os.Exit(Code(err))
}
