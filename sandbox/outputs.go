//go:build linux || darwin

package sandbox

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/denymsg"
)

// outputs is where the command's stdout and stderr go. With hints on, a
// stream that is not a terminal runs through a pipe that zsandbox copies to
// the caller unchanged, as it arrives, while the recogniser reads along. A
// terminal is passed through untouched so the command still sees a
// terminal; hints then come only from how the command ended.
type outputs struct {
	stdout, stderr io.Writer
	rec            *denymsg.Recognizer
}

func newOutputs(facts denymsg.Facts, hints bool) outputs {
	o := outputs{stdout: os.Stdout, stderr: os.Stderr}
	if !hints {
		return o
	}
	o.rec = denymsg.New(facts)
	if sameFile(os.Stdout, os.Stderr) && !isTerminal(os.Stdout) {
		// 2>&1: one writer, so os/exec gives both one pipe and the order
		// of the command's writes is kept exactly.
		w := io.MultiWriter(os.Stdout, o.rec.Stream())
		o.stdout, o.stderr = w, w
		return o
	}
	if !isTerminal(os.Stdout) {
		o.stdout = io.MultiWriter(os.Stdout, o.rec.Stream())
	}
	if !isTerminal(os.Stderr) {
		o.stderr = io.MultiWriter(os.Stderr, o.rec.Stream())
	}
	return o
}

// hint prints the hint lines for a command that ended with status code.
func (o outputs) hint(code int) {
	if o.rec == nil {
		return
	}
	ex := denymsg.Exit{Code: code}
	if code > 128 && code < 128+65 {
		ex.Signal = code - 128
	}
	for _, line := range o.rec.Hints(ex) {
		fmt.Fprintln(os.Stderr, line)
	}
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), getTermios)
	return err == nil
}

func sameFile(a, b *os.File) bool {
	var sa, sb unix.Stat_t
	return unix.Fstat(int(a.Fd()), &sa) == nil && unix.Fstat(int(b.Fd()), &sb) == nil &&
		sa.Dev == sb.Dev && sa.Ino == sb.Ino
}
