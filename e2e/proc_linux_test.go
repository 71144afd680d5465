package e2e

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// hostProcess starts a process on the host, as the identity, that the
// sandboxed command will try to see, kill and trace.
func hostProcess(t *testing.T, e *env) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	e.id.Own(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// TestHostProcessesUnreachable: a host process of the same user is not
// visible, killable or traceable.
func TestHostProcessesUnreachable(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		host := hostProcess(t, e)
		pid := strconv.Itoa(host.Process.Pid)
		r := e.sh("for p in /proc/[0-9]*; do cat $p/cmdline 2>/dev/null | tr '\\0' ' '; echo; done")
		if strings.Contains(r.Stdout, "sleep 60") {
			t.Errorf("host process visible in the sandbox's /proc:\n%s", r.Stdout)
		}
		// Each attack must be refused inside, and leave the host process
		// alive and running (an attach that got through stops it: it would
		// show as state t or T even after the tracer is gone).
		for _, kind := range []string{"kill", "ptrace"} {
			r := e.run("exec", "--", attackBin, kind, pid)
			mustFail(t, r, kind+" of a host process")
			if strings.Contains(r.Stdout, "attack succeeded") {
				t.Errorf("%s of the host process succeeded:\n%s", kind, r)
			}
		}
		mustFail(t, e.sh("kill -9 "+pid), "kill -9 of a host process")
		if err := host.Process.Signal(syscall.Signal(0)); err != nil {
			t.Errorf("host process died: %v", err)
		}
		if st, err := os.ReadFile("/proc/" + pid + "/stat"); err != nil {
			t.Errorf("reading the host process's state: %v", err)
		} else if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) == 0 || f[0] == "t" || f[0] == "T" {
			t.Errorf("host process stopped or traced: %s", st)
		}
	})
}

// TestNoPrivileges: no capabilities and no_new_privs, even as root.
func TestNoPrivileges(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.sh("grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status")
		mustSucceed(t, r, "read status")
		for _, cap := range []string{"CapEff", "CapPrm", "CapBnd", "CapAmb"} {
			if !strings.Contains(r.Stdout, cap+":\t0000000000000000") {
				t.Errorf("%s not zero:\n%s", cap, r.Stdout)
			}
		}
		if !strings.Contains(r.Stdout, "NoNewPrivs:\t1") {
			t.Errorf("NoNewPrivs not set:\n%s", r.Stdout)
		}
	})
}

// TestKernelInterfacesReadOnly: /proc/sys, sysrq-trigger and /sys cannot be
// opened for writing, even as root (global root passes sysctl permission
// checks: core_pattern would run a program on the host). The attack only
// opens; it writes nothing.
func TestKernelInterfacesReadOnly(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, p := range []string{"/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe",
			"/proc/sys/vm/drop_caches", "/proc/sys/kernel/hostname", "/proc/sysrq-trigger",
			"/proc/self/mem", "/sys/kernel/mm/transparent_hugepage/enabled", "/sys/fs/cgroup/cgroup.procs"} {
			mustFail(t, e.run("exec", "--", attackBin, "openw", p), "open for write "+p)
		}
	})
}

// TestNoRemountViaNestedUserns: a nested user namespace (which would grant
// fresh capabilities) cannot be made, so /etc cannot be remounted writable.
func TestNoRemountViaNestedUserns(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		target := "/etc/zsandbox-e2e-" + harness.RandHex(4)
		r := e.sh("unshare -Urm sh -c 'mount -o remount,rw,bind /etc && echo x > " + target + "'")
		mustFail(t, r, "unshare -Urm + remount")
		harness.MustNotExist(t, target)
		r = e.sh("mount -o remount,rw / && echo x > " + target)
		mustFail(t, r, "remount / rw")
		harness.MustNotExist(t, target)
	})
}
