package seatbelt

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// The watchdog is plain Unix code; these tests run it on Linux, where the
// test can watch processes in /proc. The test binary plays zsandbox: run
// with ZS_WATCHDOG_ROLE set, it becomes the watchdog or its parent.
func init() {
	switch os.Getenv("ZS_WATCHDOG_ROLE") {
	case "watchdog":
		Watchdog(os.Args[1:])
	case "parent":
		cmd := exec.Command(os.Args[0], os.Args[1:]...)
		cmd.Env = append(os.Environ(), "ZS_WATCHDOG_ROLE=watchdog")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err != nil {
			os.Exit(3)
		}
		cmd.Wait()
		os.Exit(0)
	}
}

func watchdogCmd(role string, argv ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"--"}, argv...)...)
	cmd.Env = append(os.Environ(), "ZS_WATCHDOG_ROLE="+role)
	return cmd
}

// TestWatchdogKillsOrphans: when zsandbox dies (SIGKILL, nothing can run),
// the watchdog kills the command and what it started.
func TestWatchdogKillsOrphans(t *testing.T) {
	marker := fmt.Sprintf("%d.%d", 4000+time.Now().UnixNano()%1000, time.Now().UnixNano()%100000)
	parent := watchdogCmd("parent", "sh", "-c", "sleep "+marker+" & sleep "+marker+"; wait")
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	if !eventually(func() bool { return len(sleepers(marker)) == 2 }) {
		parent.Process.Kill()
		t.Fatalf("the command never started: %v", sleepers(marker))
	}
	parent.Process.Kill()
	parent.Wait()
	if !eventually(func() bool { return len(sleepers(marker)) == 0 }) {
		t.Errorf("processes left after the parent died: %v", sleepers(marker))
	}
}

// TestWatchdogStatus: the command's status comes back through the watchdog.
func TestWatchdogStatus(t *testing.T) {
	for script, want := range map[string]int{"exit 0": 0, "exit 7": 7, "kill -TERM $$": 143} {
		err := watchdogCmd("watchdog", "sh", "-c", script).Run()
		got := 0
		if ee, ok := err.(*exec.ExitError); ok {
			got = ee.ExitCode()
		}
		if got != want {
			t.Errorf("watchdog running %q: exit %d (%v), want %d", script, got, err, want)
		}
	}
	if err := watchdogCmd("watchdog", "/nonexistent-zsandbox").Run(); err == nil || err.(*exec.ExitError).ExitCode() != 127 {
		t.Errorf("missing command: %v, want exit 127", err)
	}
}

func eventually(cond func() bool) bool {
	for i := 0; i < 100; i++ {
		if cond() {
			return true
		}
		time.Sleep(30 * time.Millisecond)
	}
	return false
}

// sleepers lists host PIDs running "sleep arg".
func sleepers(arg string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == "sleep\x00"+arg+"\x00" {
			out = append(out, e.Name())
		}
	}
	return out
}
