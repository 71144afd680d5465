package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/alone"
	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/plan"
)

// aloneHint is what a user without user namespaces can do instead.
const aloneHint = "where user namespaces cannot be had, --backend landlock runs without them: weaker (no PID isolation, no protected paths); zsandbox explain --backend landlock lists what it gives up"

// executeAlone applies pl with the Landlock-only backend: a child of
// zsandbox confines itself (no_new_privs, no capabilities, the planned
// Landlock ruleset, seccomp) and execs the command in place, while
// zsandbox stays the parent. It returns the command's status, or the
// error that kept it from running.
func executeAlone(pl plan.Plan, hints bool) error {
	if os.Geteuid() == 0 {
		return exit.NotRun("--backend landlock refuses to run as root: Landlock does not fence chmod or reads of root-owned files, so root would keep owner rights over the whole system",
			"run zsandbox as an unprivileged user (for example: setpriv --reuid=USER --regid=USER --init-groups zsandbox exec ...), or use the bwrap backend")
	}
	if pl.Refused != nil {
		return pl.Refused
	}
	if _, err := planStdio(nil, true); err != nil {
		return err
	}
	filter, err := seccompFD(pl.Seccomp)
	if err != nil {
		return err
	}
	defer filter.Close()
	if pl.AloneWarning != "" {
		fmt.Fprintf(os.Stderr, "zsandbox: warning: %s\n", pl.AloneWarning)
	}
	code, err := runAlone(pl, hints, filter)
	if err != nil {
		return err
	}
	return exit.Status(code)
}

// runAlone starts the confined child (alone.Child) with the plan's
// ruleset and filter, forwards signals to it, and returns its status. As
// a child subreaper, zsandbox inherits whatever the command leaves behind
// and kills it when the command has exited: with no PID namespace,
// nothing else would.
func runAlone(pl plan.Plan, hints bool, filter *os.File) (int, error) {
	out := newOutputs(pl.Hint, hints)
	stdout, stderr, copied, err := outputPipes(out)
	if err != nil {
		return 0, err
	}
	args := append([]string{alone.Arg, pl.Policy.Cwd}, pl.Landlock.Args()...)
	cmd := &exec.Cmd{
		Path: "/proc/self/exe", Args: append(append(append([]string{"zsandbox"}, args...), "--"), pl.Argv...),
		Env: pl.Policy.Env, Stdin: os.Stdin, Stdout: stdout, Stderr: stderr,
		ExtraFiles: []*os.File{filter}, // alone.BPFFD
		// Pdeathsig: if zsandbox is killed, the command dies too.
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 0, exit.NotRun("--backend landlock: prctl(PR_SET_CHILD_SUBREAPER): " + err.Error())
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, bwrap.Forwarded...)
	defer signal.Stop(sigs)
	runtime.LockOSThread() // Pdeathsig follows the thread that forked the child
	defer runtime.UnlockOSThread()
	err = cmd.Start()
	closeWriters(stdout, stderr) // the child holds its own
	if err != nil {
		return 0, exit.NotRun("--backend landlock: starting the confined child: " + err.Error())
	}
	// Process.Wait, not cmd.Wait: what the command left behind may hold
	// the output pipes open, and must be killed before they can end.
	done := make(chan *os.ProcessState, 1)
	go func() {
		st, _ := cmd.Process.Wait()
		done <- st
	}()
	for {
		select {
		case s := <-sigs:
			cmd.Process.Signal(s)
		case st := <-done:
			killLeft()
			copied.Wait()
			code := st.ExitCode()
			if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				code = 128 + int(ws.Signal())
			}
			out.hint(code)
			return code, nil
		}
	}
}

// outputPipes gives the command the caller's stdout and stderr, or, where
// the denial hint reads along, the write ends of pipes that zsandbox
// copies from until every writer is gone (copied). One pipe serves both
// when they are one writer (2>&1).
func outputPipes(out outputs) (stdout, stderr *os.File, copied *sync.WaitGroup, err error) {
	copied = &sync.WaitGroup{}
	pipe := func(w io.Writer) (*os.File, error) {
		if f, ok := w.(*os.File); ok {
			return f, nil
		}
		r, wf, err := os.Pipe()
		if err != nil {
			return nil, exit.NotRun("output pipe: " + err.Error())
		}
		copied.Add(1)
		go func() {
			defer copied.Done()
			io.Copy(w, r)
			r.Close()
		}()
		return wf, nil
	}
	if stdout, err = pipe(out.stdout); err != nil {
		return nil, nil, nil, err
	}
	if out.stderr == out.stdout {
		return stdout, stdout, copied, nil
	}
	stderr, err = pipe(out.stderr)
	return stdout, stderr, copied, err
}

// closeWriters closes zsandbox's copies of the pipes' write ends.
func closeWriters(files ...*os.File) {
	for _, f := range files {
		if f != os.Stdout && f != os.Stderr {
			f.Close()
		}
	}
}

// killLeft kills and reaps every process the command left behind, which
// the kernel reparented to zsandbox (a child subreaper): each round kills
// the children zsandbox has now and reaps one, until none is left; what a
// killed process leaves behind becomes zsandbox's child in turn.
func killLeft() {
	for {
		for _, pid := range ownChildren() {
			unix.Kill(pid, unix.SIGKILL)
		}
		if _, err := unix.Wait4(-1, nil, 0, nil); errors.Is(err, unix.ECHILD) {
			return
		}
	}
}

// ownChildren lists zsandbox's children, across every thread (an orphan
// is reparented to any thread of the subreaper).
func ownChildren() []int {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	var out []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
