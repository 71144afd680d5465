//go:build linux

package bwrap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/internal/fds"
)

// Run is one bwrap invocation.
type Run struct {
	Bwrap   string
	Plan    Plan
	Env     []string
	Seccomp *os.File // the sealed BPF program, or nil
	Exe     *os.File // zsandbox's own binary for the stage 2, or nil
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// Started, if set, is told the host PIDs of bwrap and then of the
	// sandbox's init as they become known.
	Started func(pid int)
	// Wrap, if set, changes how bwrap is started (the allowlist starts it
	// in a network namespace of its own) and returns what to do once it
	// has: an error there kills bwrap and nothing runs.
	Wrap func(cmd *exec.Cmd) (started func() error, err error)
}

// SetupError means bwrap exited without starting the command: the sandbox
// could not be built (or the command could not be executed in it), and
// nothing ran. bwrap has already printed its own reason on stderr.
type SetupError struct{ Status int }

func (e *SetupError) Error() string {
	return fmt.Sprintf("bubblewrap could not set up the sandbox (bwrap exit status %d)", e.Status)
}

// Forwarded are the signals zsandbox passes on to the command (every
// backend).
var Forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// Exec runs the plan and returns the command's exit status (128+N when it
// died of signal N), or a *SetupError when bwrap failed before the command.
func Exec(r Run) (int, error) {
	if err := CloseInherited(); err != nil {
		return 0, err
	}
	files, status, err := r.files()
	if err != nil {
		return 0, err
	}
	defer closeAll(files)
	cmd := &exec.Cmd{
		Path: r.Bwrap, Args: append([]string{"bwrap", "--args", strconv.Itoa(ArgsFD), "--"}, r.Plan.Command...),
		Env: r.Env, Stdin: r.Stdin, Stdout: r.Stdout, Stderr: r.Stderr,
		ExtraFiles: files,
		// Pdeathsig: if zsandbox is killed, bwrap dies, and bwrap's
		// --die-with-parent takes the command with it. Setpgid keeps the
		// terminal's ^C away from bwrap (it would kill the command with
		// SIGKILL); zsandbox forwards it to the command instead.
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true},
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, Forwarded...)
	defer signal.Stop(sigs)
	runtime.LockOSThread() // Pdeathsig follows the thread that forked bwrap
	defer runtime.UnlockOSThread()
	wrapped := func() error { return nil }
	if r.Wrap != nil {
		if wrapped, err = r.Wrap(cmd); err != nil {
			status.Close()
			return 0, err
		}
	}
	if err := cmd.Start(); err != nil {
		status.Close()
		return 0, fmt.Errorf("starting %s: %w", r.Bwrap, err)
	}
	if err := wrapped(); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		status.Close()
		return 0, err
	}
	files[StatusFD-3].Close() // our copy of the write end; bwrap holds its own
	r.started(cmd.Process.Pid)
	st := watchStatus(status, r.started)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			forward(st, cmd.Process, s.(syscall.Signal))
		case err := <-done:
			return exitStatus(cmd, <-st.result, err)
		}
	}
}

func (r Run) started(pid int) {
	if r.Started != nil {
		r.Started(pid)
	}
}

// files builds ExtraFiles: args, status pipe, seccomp and the empty files.
func (r Run) files() (files []*os.File, status *os.File, err error) {
	args, err := argsFile(r.Plan.Args)
	if err != nil {
		return nil, nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		args.Close()
		return nil, nil, err
	}
	// A nil entry keeps the FD numbers fixed and is closed in bwrap.
	files = []*os.File{args, statusW, r.Seccomp, r.Exe}
	for _, src := range r.Plan.Files {
		f, err := planFile(src)
		if err != nil {
			closeAll(files)
			statusR.Close()
			return nil, nil, err
		}
		files = append(files, f)
	}
	return files, statusR, nil
}

// planFile opens one of the plan's files: an empty file for a mask, or a
// bind source opened with no symlink anywhere in its path, so bwrap binds
// exactly the directory the policy resolved, whatever a concurrent command
// has since put at that path.
func planFile(src string) (*os.File, error) {
	if src == "" {
		return os.Open(os.DevNull)
	}
	f, err := fds.OpenExactFile(unix.AT_FDCWD, src, unix.O_PATH, false)
	if err != nil {
		return nil, &ChangedError{Path: src, Err: err}
	}
	return f, nil
}

// ChangedError means a path the policy resolved is no longer what it was
// (now a symlink, or gone): nothing runs.
type ChangedError struct {
	Path string
	Err  error
}

func (e *ChangedError) Error() string {
	return fmt.Sprintf("%q changed after the policy was resolved (%v); another process may be racing the sandbox", e.Path, e.Err)
}

// argsFile puts the NUL-separated argv in a memfd, so no list of roots is
// ever too long for execve (E2BIG) and nothing touches the disk.
func argsFile(args []string) (*os.File, error) {
	fd, err := unix.MemfdCreate("zsandbox-bwrap-args", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd for bwrap arguments: %w", err)
	}
	f := os.NewFile(uintptr(fd), "bwrap-args")
	var buf bytes.Buffer
	for _, a := range args {
		buf.WriteString(a)
		buf.WriteByte(0)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// CloseInherited marks every descriptor above stderr close-on-exec. Go only
// sets it on files it opens itself; a descriptor zsandbox inherited (a
// caller's socket, a terminal, a credential file) would otherwise pass
// through bwrap into the sandbox.
func CloseInherited() error {
	if err := fds.CloseInherited(); err != nil {
		return fmt.Errorf("closing inherited descriptors: %w", err)
	}
	return nil
}

// status is what bwrap reported on --json-status-fd.
type status struct {
	childPid int  // the sandbox's init, as the host sees it; 0 until cloned
	exitCode *int // the command's exit status; nil when it never started
}

type statusWatch struct {
	childPid chan int
	result   chan status
}

// watchStatus reads bwrap's JSON status documents until bwrap closes the fd.
func watchStatus(r *os.File, started func(int)) statusWatch {
	w := statusWatch{childPid: make(chan int, 1), result: make(chan status, 1)}
	go func() {
		defer r.Close()
		w.result <- decodeStatus(r, func(pid int) {
			started(pid)
			w.childPid <- pid
		})
	}()
	return w
}

// decodeStatus reads bwrap's JSON status documents from r until it ends or
// holds something else, calling onChild with the sandbox's init as soon as
// bwrap names it.
func decodeStatus(r io.Reader, onChild func(int)) status {
	var st status
	dec := json.NewDecoder(r)
	for {
		var doc struct {
			ChildPid *int `json:"child-pid"`
			ExitCode *int `json:"exit-code"`
		}
		if dec.Decode(&doc) != nil {
			return st
		}
		if doc.ChildPid != nil {
			st.childPid = *doc.ChildPid
			onChild(st.childPid)
		}
		if doc.ExitCode != nil {
			st.exitCode = doc.ExitCode
		}
	}
}

// forward delivers sig to the command's process group. The sandbox's init
// (bwrap, PID 1 inside) ignores signals from outside, so the command itself,
// init's child and a session leader thanks to --new-session, is the target.
// Before the command exists there is nothing to interrupt: bwrap is killed.
func forward(w statusWatch, bwrap *os.Process, sig syscall.Signal) {
	var init int
	select {
	case init = <-w.childPid:
		w.childPid <- init // keep it for the next signal
	case <-time.After(100 * time.Millisecond):
	}
	for i := 0; init != 0 && i < 100; i++ {
		if pids := children(init); len(pids) > 0 {
			for _, p := range pids {
				if unix.Kill(-p, sig) != nil {
					unix.Kill(p, sig)
				}
			}
			return
		}
		time.Sleep(time.Millisecond)
	}
	bwrap.Signal(syscall.SIGKILL)
}

func children(pid int) []int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// exitStatus turns bwrap's end into the command's exit status.
func exitStatus(cmd *exec.Cmd, st status, waitErr error) (int, error) {
	code := cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return 0, waitErr
	}
	// bwrap reports "exit-code" only for a command it started; without it,
	// bwrap itself failed (a mount, a namespace, execvp) and nothing ran.
	if st.exitCode == nil {
		return 0, &SetupError{Status: code}
	}
	return *st.exitCode, nil
}
