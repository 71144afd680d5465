package contexts

import (
	"errors"
	"fmt"
)

// Sentinel errors; every error a context returns wraps at most one of them.
var (
	// ErrNotFound: no such handle, container, process or file.
	ErrNotFound = errors.New("not found")
	// ErrUnsupported: the context cannot do this (see Capabilities).
	ErrUnsupported = errors.New("not supported by this context")
	// ErrUnavailable: the context cannot run anything safely here (no
	// zsandbox, no daemon, no runtime). The CLI exits 127; nothing ran.
	ErrUnavailable = errors.New("context unavailable")
	// ErrDestroyed: the handle was destroyed.
	ErrDestroyed = errors.New("handle destroyed")
	// ErrDenied: the context's policy refuses the file operation (a
	// hidden path, a write outside the writable roots).
	ErrDenied = errors.New("denied by the context's policy")
	// ErrUsage: bad input (unknown context, malformed option). Exit 2.
	ErrUsage = errors.New("usage")
)

// Error is an error with a fix: Hint names the flag or step that helps.
type Error struct {
	Kind error  // one of the sentinels
	Msg  string // lowercase, context first
	Hint string
}

func (e *Error) Error() string { return e.Msg }

// Unwrap lets errors.Is see the sentinel.
func (e *Error) Unwrap() error { return e.Kind }

// Errorf returns an *Error of kind with a formatted message.
func Errorf(kind error, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// WithHint returns e with hint set.
func (e *Error) WithHint(hint string) *Error { e.Hint = hint; return e }

// Hint returns the hint of the first *Error in err's chain, or "".
func Hint(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Hint
	}
	return ""
}

// ExitCode maps an error of a context to the CLI's exit code: 2 for bad
// input, 127 for everything that kept a command from running.
func ExitCode(err error) int {
	if errors.Is(err, ErrUsage) {
		return 2
	}
	return ExitCannotRun
}
