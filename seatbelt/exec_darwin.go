//go:build darwin

package seatbelt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// Exec runs argv under prof with the caller's standard streams and returns
// the command's exit status (128+N when signal N killed it). A non-nil
// error means nothing ran: sandbox-exec is missing or refused the profile
// (*SetupError), or the command was not found (wraps exec.ErrNotFound);
// the code is then 127.
func Exec(prof Profile, argv []string, env []string, dir string) (int, error) {
	return ExecStdio(prof, argv, env, dir, Stdio{})
}

// ExecStdio is Exec with the command's standard streams chosen by the caller
// (for example to watch stderr for denials while passing it through).
func ExecStdio(prof Profile, argv []string, env []string, dir string, stdio Stdio) (int, error) {
	if len(argv) == 0 {
		return notRun, errors.New("seatbelt: no command")
	}
	if err := Probe(prof); err != nil {
		return notRun, err
	}
	path, err := lookPath(argv[0], env, dir)
	if err != nil {
		return notRun, err
	}
	self, err := os.Executable()
	if err != nil {
		return notRun, &SetupError{Reason: "cannot find zsandbox's own binary for the watchdog", Err: err}
	}
	// sandbox-exec runs zsandbox's watchdog, which runs the command and
	// kills it if zsandbox dies (macOS has no parent-death signal).
	args := append([]string{"sandbox-exec"}, prof.Args()...)
	args = append(append(args, "--", self, WatchdogArg, "--", path), argv[1:]...)
	cmd := &exec.Cmd{
		Path:   SandboxExec,
		Args:   args,
		Env:    env,
		Dir:    dir,
		Stdin:  orFile(stdio.In, os.Stdin),
		Stdout: orWriter(stdio.Out, os.Stdout),
		Stderr: orWriter(stdio.Err, os.Stderr),
		// A new session: no controlling terminal, so TIOCSTI cannot push
		// keystrokes into the caller's shell (bwrap --new-session on Linux).
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	return run(cmd)
}

// Probe checks that sandbox-exec exists and accepts prof by running
// /usr/bin/true under it. sandbox-exec reports a rejected profile with an
// exit status a command could also return, so Exec probes first and can
// then pass the command's status through untouched.
func Probe(prof Profile) error {
	if _, err := os.Stat(SandboxExec); err != nil {
		return &SetupError{
			Reason: SandboxExec + " is missing",
			Hint:   "the seatbelt backend needs the sandbox-exec that ships with macOS",
			Err:    err,
		}
	}
	args := append([]string{"sandbox-exec"}, prof.Args()...)
	cmd := &exec.Cmd{
		Path: SandboxExec,
		Args: append(args, "--", "/usr/bin/true"),
		Env:  []string{"PATH=" + defaultPath},
		Dir:  "/",
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return probeError(out, err)
	}
	return nil
}

// run starts cmd, forwards the signals that would stop zsandbox to the
// command's whole process group, and returns its exit status.
func run(cmd *exec.Cmd) (int, error) {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return notRun, &SetupError{Reason: "cannot start " + SandboxExec, Err: err}
	}
	done := make(chan struct{})
	go forward(cmd.Process.Pid, sigs, done)
	err := cmd.Wait()
	close(done)
	if cmd.ProcessState == nil {
		return notRun, fmt.Errorf("seatbelt: waiting for the command: %w", err)
	}
	return status(cmd.ProcessState), nil
}

// forward relays signals to the command's process group (Setsid made the
// command its leader) until done is closed.
func forward(pid int, sigs <-chan os.Signal, done <-chan struct{}) {
	for {
		select {
		case s := <-sigs:
			if n, ok := s.(syscall.Signal); ok {
				_ = syscall.Kill(-pid, n)
			}
		case <-done:
			return
		}
	}
}

// orFile returns r, or def when r is nil; passing the *os.File itself lets
// exec hand the descriptor to the child instead of copying through a pipe.
func orFile(r io.Reader, def *os.File) io.Reader {
	if r == nil {
		return def
	}
	return r
}

func orWriter(w io.Writer, def *os.File) io.Writer {
	if w == nil {
		return def
	}
	return w
}
