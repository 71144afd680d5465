package e2e

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// asUser runs f for the unprivileged identity only: --backend landlock
// refuses root (TestAloneBackend checks that).
func asUser(t *testing.T, f func(t *testing.T, e *env)) {
	each(t, func(t *testing.T, e *env) {
		if e.id.UID == 0 {
			return
		}
		f(t, e)
	})
}

func (e *env) aloneCmd(args ...string) []string {
	return append([]string{"exec", "--backend", "landlock", "--no-warning", "--"}, args...)
}

// TestAloneDenialHint: a write the Landlock-only backend refuses gets the
// hint naming the writable roots, as under bwrap (it used to print only
// "Permission denied": the command replaced zsandbox), and the host file
// stays absent.
func TestAloneDenialHint(t *testing.T) {
	asUser(t, func(t *testing.T, e *env) {
		target := filepath.Join(e.base, "outside-"+harness.RandHex(4))
		r := e.run(e.aloneCmd("sh", "-c", "echo x > "+target)...)
		if r.Code == 0 || !strings.Contains(r.Stderr, "zsandbox: hint: "+target+" is outside the writable roots; writes are allowed only under") || !strings.Contains(r.Stderr, e.proj) {
			t.Errorf("want a failed write and the writable-roots hint naming %s\n%s", e.proj, r)
		}
		harness.MustNotExist(t, target)
	})
}

// TestAloneLeavesNoProcess: without a PID namespace, background processes
// the command starts would outlive it; zsandbox, a child subreaper,
// kills them before it exits. Checked from outside, right after zsandbox
// returned.
func TestAloneLeavesNoProcess(t *testing.T) {
	asUser(t, func(t *testing.T, e *env) {
		marker := fmt.Sprintf("%d.%d", 3000+time.Now().UnixNano()%1000, time.Now().UnixNano()%100000)
		cmd := e.command(e.proj, e.aloneCmd("sh", "-c", "(setsid sleep "+marker+" &) ; sleep "+marker+" & echo ready; read x")...)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out).ReadString('\n')
		if !waitFor(3*time.Second, func() bool { return len(processesNamed(marker)) == 2 }) {
			t.Fatalf("background processes never started: %v", processesNamed(marker))
		}
		io.WriteString(in, "go\n")
		in.Close()
		cmd.Wait()
		if left := processesNamed(marker); len(left) != 0 {
			t.Errorf("processes outlived zsandbox --backend landlock: %v", left)
		}
	})
}

// TestAloneSignalsReachCommand: SIGTERM sent to zsandbox reaches the
// command (zsandbox is its parent now, not the command itself), and the
// command's status comes back.
func TestAloneSignalsReachCommand(t *testing.T) {
	asUser(t, func(t *testing.T, e *env) {
		cmd := e.command(e.proj, e.aloneCmd("sh", "-c", "trap 'echo got; exit 3' TERM; echo ready; while :; do sleep 0.05; done")...)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		rd := bufio.NewReader(out)
		rd.ReadString('\n')
		cmd.Process.Signal(syscall.SIGTERM)
		rest, _ := io.ReadAll(rd)
		err := cmd.Wait()
		if code := exitCodeOf(err); code != 3 || string(rest) != "got\n" {
			t.Errorf("exit %d, output %q; want 3 and the trap's line", code, rest)
		}
	})
}
