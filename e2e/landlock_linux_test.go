package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
	"github.com/zsandbox/zsandbox/seccomp"
)

// TestLandlockFenceApplied: bwrap's fresh /dev is a writable tmpfs that is
// not a writable root, a stand-in for a mis-ordered mount. Without Landlock
// a file can be planted there; with the default stage 2, Landlock refuses.
func TestLandlockFenceApplied(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		mustSucceed(t, e.sh("touch /dev/planted", "--landlock", "off"), "plant in /dev without Landlock")
		mustFail(t, e.sh("touch /dev/planted"), "plant in /dev with Landlock")
		mustFail(t, e.sh("mkfifo /tmp/../dev/fifo"), "fifo in /dev with Landlock")
		mustSucceed(t, e.sh("echo ok > /dev/null && echo ok > f"), "writes Landlock allows")
	})
}

// noLandlockFilter is a seccomp program that makes Landlock look absent.
func noLandlockFilter(t *testing.T) *os.File {
	t.Helper()
	prof, err := seccomp.Parse([]byte(`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
		{"names": ["landlock_create_ruleset"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}`), "no-landlock")
	if err != nil {
		t.Fatal(err)
	}
	bpf, err := seccomp.Compile(prof)
	if err != nil {
		t.Fatal(err)
	}
	f, err := seccomp.SealedFD(bpf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestLandlockRequireWithoutLandlock: on a kernel without Landlock (faked
// with an outer seccomp filter), --landlock require exits 127 and runs
// nothing; auto runs.
func TestLandlockRequireWithoutLandlock(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		bwrapPath, _ := exec.LookPath("bwrap")
		for _, mode := range []string{"require", "auto"} {
			marker := filepath.Join(e.proj, "ran-"+mode)
			cmd := e.command(e.proj)
			cmd.Path = bwrapPath
			cmd.Args = []string{"bwrap", "--dev-bind", "/", "/", "--seccomp", "3", "--",
				zsandbox, "exec", "--landlock", mode, "--", "touch", marker}
			cmd.ExtraFiles = []*os.File{noLandlockFilter(t)}
			out, err := cmd.CombinedOutput()
			code := exitCodeOf(err)
			if mode == "require" {
				if code != 127 || !strings.Contains(string(out), "zsandbox: error: ") || !strings.Contains(string(out), "zsandbox: hint: ") {
					t.Errorf("require without Landlock: exit %d, want 127 with error and hint\n%s", code, out)
				}
				harness.MustNotExist(t, marker)
				continue
			}
			if code != 0 {
				t.Errorf("auto without Landlock: exit %d, want 0\n%s", code, out)
			}
			if _, err := os.Stat(marker); err != nil {
				t.Errorf("auto without Landlock did not run the command: %v", err)
			}
		}
	})
}

// TestStage2FromHiddenBinary: zsandbox installed inside a hidden directory
// still runs its stage 2 (handed over by descriptor, not by path).
func TestStage2FromHiddenBinary(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		bin := filepath.Join(e.home, ".ssh", "zsandbox")
		e.install(bin)
		cmd := e.command(e.proj, "exec", "--landlock", "require", "--", "sh", "-c", "echo ok > f")
		cmd.Path, cmd.Args[0] = bin, bin
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("zsandbox from a hidden directory: %v\n%s", err, out)
		}
		harness.MustContain(t, filepath.Join(e.proj, "f"), "ok\n")
	})
}

// TestStage2ExitStatus: not executable is 126, not found 127, each with a
// zsandbox: error line from the stage 2.
func TestStage2ExitStatus(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.write(filepath.Join(e.proj, "noexec"), "#!/bin/sh\n")
		os.Chmod(filepath.Join(e.proj, "noexec"), 0o644)
		e.chownAll()
		for args, want := range map[string]int{"./noexec": 126, "./missing": 127, "no-such-zsandbox-cmd": 127} {
			r := e.run("exec", "--", args)
			if r.Code != want || !strings.HasPrefix(r.Stderr, "zsandbox: error: ") {
				t.Errorf("exec %s: want %d with an error line\n%s", args, want, r)
			}
		}
	})
}
