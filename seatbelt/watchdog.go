//go:build unix

package seatbelt

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// watchdogPoll is how often the watchdog looks for its parent.
const watchdogPoll = 50 * time.Millisecond

// Watchdog runs inside sandbox-exec, between it and the command: macOS has
// no parent-death signal, so without it a command outlives a killed
// zsandbox. It starts the command (after "--" in args) in its own process
// group, which is the group of the session the runner made, waits, and
// exits with the command's status (128+N for signal N).
// When its parent (zsandbox) goes away, it kills the whole group, the
// command and everything it started, with SIGKILL. It never returns.
func Watchdog(args []string) {
	parent := os.Getppid()
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintln(os.Stderr, "zsandbox: error: watchdog: no command")
		os.Exit(notRun)
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The caller forwards signals to the whole group; the watchdog only
	// has to survive them (handled, not ignored: the command must not
	// inherit an ignored disposition).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "zsandbox: error: %v\n", err)
		os.Exit(notRunCode(err))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(watchdogPoll)
	for {
		select {
		case <-done:
			os.Exit(status(cmd.ProcessState))
		case <-tick.C:
			if os.Getppid() != parent {
				syscall.Kill(0, syscall.SIGKILL) // the group: command, its children, the watchdog
			}
		}
	}
}

// notRunCode is 126 for a command found but not executable, else 127.
func notRunCode(err error) int {
	if errors.Is(err, os.ErrPermission) {
		return 126
	}
	return notRun
}

// status maps a finished process to a shell-style exit status.
func status(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
