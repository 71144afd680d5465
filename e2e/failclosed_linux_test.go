package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// TestFailsClosedWithoutBwrap: with bwrap covered by /dev/null in a private
// mount namespace, zsandbox exits 127 and the command does not run.
func TestFailsClosedWithoutBwrap(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marker := filepath.Join(e.proj, "ran")
		bwrapPath, err := exec.LookPath("bwrap")
		if err != nil {
			t.Fatal(err)
		}
		script := "mount --bind /dev/null " + bwrapPath + " && exec " + zsandbox + " exec -- touch " + marker
		cmd := e.command(e.proj, "unshare", "-rm", "sh", "-c", script)
		cmd.Path, _ = exec.LookPath("unshare")
		cmd.Args = []string{"unshare", "-rm", "sh", "-c", script}
		out, err := cmd.CombinedOutput()
		if code := exitCodeOf(err); code != 127 {
			t.Errorf("exit %d, want 127\n%s", code, out)
		}
		if !strings.Contains(string(out), "zsandbox: error: bubblewrap (bwrap) is not installed") {
			t.Errorf("output lacks the diagnosis:\n%s", out)
		}
		harness.MustNotExist(t, marker)
	})
}

// TestFailsClosedWithoutUserNamespaces: inside an outer sandbox that forbids
// user namespaces, bwrap cannot build ours; zsandbox exits 127 with a
// diagnosis and the command does not run, although the outer sandbox would
// have let it write.
func TestFailsClosedWithoutUserNamespaces(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marker := filepath.Join(e.proj, "ran")
		bwrapPath, _ := exec.LookPath("bwrap")
		cmd := e.command(e.proj)
		cmd.Path = bwrapPath
		cmd.Args = []string{"bwrap", "--dev-bind", "/", "/", "--unshare-user", "--disable-userns", "--",
			zsandbox, "exec", "--", "touch", marker}
		out, err := cmd.CombinedOutput()
		if code := exitCodeOf(err); code != 127 {
			t.Errorf("exit %d, want 127\n%s", code, out)
		}
		if !strings.Contains(string(out), "zsandbox: error: bubblewrap could not set up the sandbox") {
			t.Errorf("output lacks the diagnosis:\n%s", out)
		}
		harness.MustNotExist(t, marker)
	})
}

// TestPlantedBwrapIgnored: a bwrap planted in cwd and put first on PATH is
// never run (it would run outside the sandbox).
func TestPlantedBwrapIgnored(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marker := filepath.Join(e.outside, "planted-ran")
		e.write(filepath.Join(e.proj, "bwrap"), "#!/bin/sh\ntouch "+marker+"\n")
		e.chownAll()
		cmd := e.command(e.proj, "exec", "--", "true")
		for i, kv := range cmd.Env {
			if strings.HasPrefix(kv, "PATH=") {
				cmd.Env[i] = "PATH=" + e.proj + ":" + kv[5:]
			}
		}
		exec.Command("chmod", "755", filepath.Join(e.proj, "bwrap")).Run()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("zsandbox failed: %v\n%s", err, out)
		}
		harness.MustNotExist(t, marker)
	})
}

// TestDoctor: passes here; fails with the right fix when bwrap is hidden or
// user namespaces are unavailable.
func TestDoctor(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.run("doctor")
		if r.Code != 0 || !strings.Contains(r.Stdout, "zsandbox exec works on this host") {
			t.Errorf("doctor on this host:\n%s", r)
		}
		bwrapPath, _ := exec.LookPath("bwrap")
		cmd := e.command(e.proj)
		cmd.Path, _ = exec.LookPath("unshare")
		cmd.Args = []string{"unshare", "-rm", "sh", "-c", "mount --bind /dev/null " + bwrapPath + " && exec " + zsandbox + " doctor"}
		out, err := cmd.CombinedOutput()
		if exitCodeOf(err) != 1 || !strings.Contains(string(out), "FAIL  bwrap: not found") || !strings.Contains(string(out), "apt-get install bubblewrap") {
			t.Errorf("doctor without bwrap: %v\n%s", err, out)
		}
		cmd = e.command(e.proj)
		cmd.Path = bwrapPath
		cmd.Args = []string{"bwrap", "--dev-bind", "/", "/", "--unshare-user", "--disable-userns", "--", zsandbox, "doctor"}
		out, err = cmd.CombinedOutput()
		if exitCodeOf(err) != 1 || !strings.Contains(string(out), "FAIL  user namespaces") || !strings.Contains(string(out), "fix: ") {
			t.Errorf("doctor without user namespaces: %v\n%s", err, out)
		}
	})
}
