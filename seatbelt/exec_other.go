//go:build !darwin

package seatbelt

import "runtime"

// Exec fails off macOS: there is no sandbox-exec to run. The error is a
// *SetupError wrapping ErrUnsupported; the code is 127 (nothing ran).
func Exec(prof Profile, argv []string, env []string, dir string) (int, error) {
	return notRun, unsupported()
}

// ExecStdio fails off macOS, like Exec.
func ExecStdio(prof Profile, argv []string, env []string, dir string, stdio Stdio) (int, error) {
	return notRun, unsupported()
}

// Probe fails off macOS, like Exec.
func Probe(prof Profile) error {
	return unsupported()
}

func unsupported() error {
	return &SetupError{
		Reason: "cannot run sandbox-exec on " + runtime.GOOS,
		Hint:   "use --backend auto, which picks bwrap on Linux",
		Err:    ErrUnsupported,
	}
}
