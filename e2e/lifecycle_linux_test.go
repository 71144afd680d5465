package e2e

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExitCodes: the command's status comes back exactly; 128+N for a
// signal; 127 for a missing command; 2 for usage errors.
func TestExitCodes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		cases := []struct {
			args []string
			want int
		}{
			{[]string{"exec", "--", "true"}, 0},
			{[]string{"exec", "--", "false"}, 1},
			{[]string{"exec", "--", "sh", "-c", "exit 42"}, 42},
			{[]string{"exec", "--", "sh", "-c", "exit 255"}, 255},
			{[]string{"exec", "--", "sh", "-c", "kill -TERM $$"}, 128 + 15},
			{[]string{"exec", "--", "sh", "-c", "kill -KILL $$"}, 128 + 9},
			{[]string{"exec", "--", "zsandbox-no-such-command"}, 127},
			{[]string{"exec", "--no-such-flag", "--", "true"}, 2},
			{[]string{"exec"}, 2},
			{[]string{"no-such-subcommand"}, 2},
			{[]string{"exec", "--network", "sometimes", "--", "true"}, 2},
			{[]string{"exec", "--writable", "/nonexistent-zsandbox", "--", "true"}, 2},
		}
		for _, c := range cases {
			r := e.run(c.args...)
			if r.Code != c.want {
				t.Errorf("zsandbox %q: exit %d, want %d\n%s", c.args, r.Code, c.want, r)
			}
			if c.want == 127 || c.want == 2 {
				if !strings.HasPrefix(r.Stderr, "zsandbox: error: ") {
					t.Errorf("zsandbox %q: stderr %q, want a zsandbox: error: line", c.args, r.Stderr)
				}
			}
		}
	})
}

// TestStdioBinaryExact: 8 MiB of random bytes through stdin to stdout and
// to stderr, byte for byte.
func TestStdioBinaryExact(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		data := make([]byte, 8<<20)
		rand.Read(data)
		r := e.runIn(e.proj, data, "exec", "--", "cat")
		if r.Code != 0 || !bytes.Equal([]byte(r.Stdout), data) {
			t.Errorf("stdout: exit %d, %d bytes, equal=%v", r.Code, len(r.Stdout), bytes.Equal([]byte(r.Stdout), data))
		}
		r = e.runIn(e.proj, data, "exec", "--", "sh", "-c", "cat >&2")
		if r.Code != 0 || !bytes.Equal([]byte(r.Stderr), data) {
			t.Errorf("stderr: exit %d, %d bytes", r.Code, len(r.Stderr))
		}
	})
}

// TestNoExtraDescriptors: the command gets 0, 1 and 2 only, even when
// zsandbox itself inherited more.
func TestNoExtraDescriptors(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		cmd := e.command(e.proj, "exec", "--", "sh", "-c", "ls /proc/self/fd")
		leak, err := os.Open("/etc/hostname")
		if err != nil {
			t.Fatal(err)
		}
		defer leak.Close()
		cmd.ExtraFiles = []*os.File{leak}
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		// ls itself holds one descriptor for the directory it lists.
		if got := strings.Fields(string(out)); len(got) != 4 {
			t.Errorf("descriptors in the sandbox: %v, want 0 1 2 and ls's own", got)
		}
	})
}

// TestSigtermReachesCommand: SIGTERM to zsandbox reaches the command and
// its exit status comes back.
func TestSigtermReachesCommand(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
			cmd := e.command(e.proj, "exec", "--", "sh", "-c", `trap 'exit 42' TERM INT HUP; echo ready; while :; do sleep 0.05; done`)
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
				t.Fatalf("no ready line: %q", line)
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			if code := exitCodeOf(err); code != 42 {
				t.Errorf("after %v: exit %d (%v), want 42 from the command's trap", sig, code, err)
			}
		}
	})
}

// TestKillLeavesNoOrphans: SIGKILL of zsandbox takes the command and its
// background children with it.
func TestKillLeavesNoOrphans(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		// A unique duration marks the sleeps so the host can find them.
		marker := fmt.Sprintf("%d.%d", 3000+time.Now().UnixNano()%1000, time.Now().UnixNano()%100000)
		cmd := e.command(e.proj, "exec", "--", "sh", "-c",
			"sleep "+marker+" & sleep "+marker+" & echo ready; wait")
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out).ReadString('\n')
		if !waitFor(3*time.Second, func() bool { return len(processesNamed(marker)) == 2 }) {
			t.Fatalf("background processes never started: %v", processesNamed(marker))
		}
		cmd.Process.Kill()
		cmd.Wait()
		if !waitFor(5*time.Second, func() bool { return len(processesNamed(marker)) == 0 }) {
			t.Errorf("processes left after SIGKILL of zsandbox: %v", processesNamed(marker))
		}
	})
}

// processesNamed lists host PIDs running "sleep arg".
func processesNamed(arg string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		b, err := os.ReadFile("/proc/" + ent.Name() + "/cmdline")
		if err == nil && string(b) == "sleep\x00"+arg+"\x00" {
			out = append(out, ent.Name())
		}
	}
	return out
}

func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
