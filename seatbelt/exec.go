package seatbelt

import (
	"errors"
	"io"
	"strings"
)

// SandboxExec is the only sandbox-exec zsandbox runs: the system's, by
// absolute path, never one found on PATH (a writable root could hold a fake).
const SandboxExec = "/usr/bin/sandbox-exec"

// WatchdogArg is the argv[1] that makes zsandbox run as the watchdog.
const WatchdogArg = "__watchdog"

// ErrUnsupported is wrapped by the SetupError Exec returns off macOS.
var ErrUnsupported = errors.New("sandbox-exec is only available on macOS")

// SetupError reports that the sandbox could not be built, so the command
// did not run. The CLI exits 127, prints "zsandbox: error: " + Error() and,
// when Hint is set, "zsandbox: hint: " + Hint.
type SetupError struct {
	// Reason says what failed, e.g. "sandbox-exec rejected the profile: ...".
	Reason string
	// Hint names the fix, or is empty.
	Hint string
	// Err is the underlying error, if any.
	Err error
}

func (e *SetupError) Error() string {
	if e.Err != nil {
		return "seatbelt: " + e.Reason + ": " + e.Err.Error()
	}
	return "seatbelt: " + e.Reason
}

func (e *SetupError) Unwrap() error { return e.Err }

// Stdio holds the command's standard streams. A nil field means the caller's
// own (os.Stdin, os.Stdout, os.Stderr), passed through as file descriptors,
// so the command's bytes are neither copied nor buffered.
type Stdio struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

// notRun is the exit code Exec returns with an error: nothing ran.
const notRun = 127

// probeError turns sandbox-exec's complaint into a SetupError.
func probeError(out []byte, err error) error {
	msg := firstLine(string(out))
	if strings.Contains(msg, "sandbox_apply") && strings.Contains(msg, "Operation not permitted") {
		return &SetupError{
			Reason: "cannot apply a Seatbelt profile here (" + msg + ")",
			Hint:   "zsandbox is already inside a macOS sandbox, and sandboxes do not nest; run it outside the other sandbox",
			Err:    err,
		}
	}
	if msg == "" {
		msg = "no message"
	}
	return &SetupError{
		Reason: "sandbox-exec rejected the profile (" + msg + ")",
		Hint:   "this is a zsandbox bug; please report it with the output of zsandbox explain --format seatbelt",
		Err:    err,
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
