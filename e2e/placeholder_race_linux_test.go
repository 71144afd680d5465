//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/policy"
)

// TestPlaceholderGoneWhileStarting (red team rt13): run B resolves its
// policy while run A holds the placeholder for the project's .envrc, so B
// takes .envrc for an existing file. A ends and its guard removes the
// placeholder before B makes its own; B then neither made nor shared one
// (the path "existed"), and run C makes a fresh placeholder there before
// B's bwrap opens the path. B bound C's placeholder without holding its
// lock: when C ended, its guard removed it, the kernel dropped B's mount,
// and B's command wrote .envrc, which direnv runs later outside. The
// moments are made exact by holding, from outside, the lock of a
// placeholder B shares just before .envrc (.bashrc) and of one just after
// (.profile): B waits on each in turn.
func TestPlaceholderGoneWhileStarting(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		envrc := filepath.Join(e.home, ".envrc")
		stop := filepath.Join(e.outside, "stop")
		// A and C: the same cwd, another HOME, so .bashrc and .profile
		// are not theirs; they protect the project's .envrc.
		other := func(end string) *bgRun {
			cmd := e.command(e.home, "exec", "--", "sh", "-c", "echo ready; while [ ! -e "+end+" ]; do sleep 0.05; done")
			cmd.Env = withHome(cmd.Env, e.outside)
			return startReady(t, cmd)
		}
		endA, endC := filepath.Join(e.outside, "endA"), filepath.Join(e.outside, "endC")
		a := other(endA)
		if !isPlaceholderAt(envrc) {
			t.Fatalf("run A holds no placeholder for .envrc")
		}
		before := lockedPlaceholder(t, e, filepath.Join(e.home, ".bashrc"))
		after := lockedPlaceholder(t, e, filepath.Join(e.home, ".profile"))

		plant := "echo ready; while :; do echo planted 2>/dev/null >.envrc && exit 0; " +
			"[ -e " + stop + " ] && { echo planted 2>/dev/null >.envrc && exit 0; exit 3; }; sleep 0.05; done"
		b := e.command(e.home, "exec", "--", "sh", "-c", plant)
		var berr bytes.Buffer
		b.Stderr = &berr
		bout, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer bout.Close()
		b.Stdout = w
		err = b.Start()
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		bDone := make(chan error, 1)
		go func() { bDone <- b.Wait() }()
		waitLockWaiter(t, before, bDone)

		// A ends: its guard removes the placeholder B saw.
		os.WriteFile(endA, nil, 0o644)
		a.wait()
		if _, err := os.Lstat(envrc); err == nil {
			t.Fatalf("run A's placeholder outlived it")
		}
		before.Close()
		waitLockWaiter(t, after, bDone)

		// C makes a fresh placeholder while B is between its placeholders
		// and its bwrap.
		c := other(endC)
		after.Close()
		bufio.NewReader(bout).ReadString('\n') // B's command runs (or B refused)
		os.WriteFile(endC, nil, 0o644)
		c.wait()
		os.WriteFile(stop, nil, 0o644)
		<-bDone

		if data, err := os.ReadFile(envrc); err == nil && len(data) > 0 {
			t.Errorf("run B planted %s on the host (%q)\n%s", envrc, data, berr.String())
		}
		os.Remove(envrc)
	})
}

// bgRun is a zsandbox run started in the background whose command said
// it is ready.
type bgRun struct {
	t   *testing.T
	cmd *osexec.Cmd
	out *bytes.Buffer
}

func (r *bgRun) wait() {
	r.t.Helper()
	if err := r.cmd.Wait(); err != nil {
		r.t.Fatalf("run: %v\n%s", err, r.out.String())
	}
}

// startReady starts cmd and waits until its command prints a line.
func startReady(t *testing.T, cmd *osexec.Cmd) *bgRun {
	t.Helper()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		cmd.Wait()
		t.Fatalf("run did not start: %v\n%s", err, errb.String())
	}
	return &bgRun{t: t, cmd: cmd, out: &errb}
}

// lockedPlaceholder makes what zsandbox takes for another run's
// placeholder at path and holds its lock exclusively: a run sharing it
// waits in flock until the returned file is closed.
func lockedPlaceholder(t *testing.T, e *env, path string) *os.File {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o444)
	os.Lchown(path, e.id.UID, e.id.GID)
	if err := os.Chtimes(path, policy.PlaceholderTime, policy.PlaceholderTime); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(); os.Remove(path) })
	return f
}

// waitLockWaiter waits until a process is blocked on f's flock
// (/proc/locks lists a waiter, "->", on its inode); it fails if the run
// ends first.
func waitLockWaiter(t *testing.T, f *os.File, done chan error) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	ino := fmt.Sprintf(":%d ", st.Ino)
	for {
		b, _ := os.ReadFile("/proc/locks")
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "->") && strings.Contains(l, ino) {
				return
			}
		}
		select {
		case err := <-done:
			done <- err
			t.Fatalf("run B ended before it waited for %s: %v", f.Name(), err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func isPlaceholderAt(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && policy.IsPlaceholder(fi)
}
