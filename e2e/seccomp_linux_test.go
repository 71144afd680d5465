package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// probeIn runs one attack syscall probe inside zsandbox and returns what
// the kernel answered ("ok" or an errno name).
func (e *env) probeIn(t *testing.T, name string, flags ...string) string {
	t.Helper()
	args := append(append([]string{"exec"}, flags...), "--", attackBin, "syscall", name)
	r := e.run(args...)
	return strings.TrimSpace(strings.SplitN(r.Stdout, "\n", 2)[0])
}

// probeOut runs the same probe on the host as the same identity.
func (e *env) probeOut(t *testing.T, name string) string {
	t.Helper()
	cmd := e.command(e.proj)
	cmd.Path, cmd.Args = attackBin, []string{attackBin, "syscall", name}
	out, _ := cmd.Output()
	return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
}

// TestSeccompBlocks: each call the filter refuses fails inside with the
// errno the profile chose, and answers differently outside, which proves
// the refusal is the filter's and not the kernel's.
func TestSeccompBlocks(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, name := range []string{"tiocsti", "tiocsti-high-bits", "io_uring_setup", "keyctl-join-session", "unshare-user",
			"mount", "bpf", "perf_event_open", "socket-vsock", "personality-bsd"} {
			in, out := e.probeIn(t, name), e.probeOut(t, name)
			if in != "EPERM" {
				t.Errorf("%s inside the sandbox: %s, want EPERM", name, in)
			}
			if out == in {
				if e.id.UID == 0 {
					t.Errorf("%s outside the sandbox as root also gives %s: the test does not prove the filter", name, out)
				} else {
					t.Logf("%s: the kernel refuses it for this user too (%s); the root run proves the filter", name, out)
				}
			}
		}
		r := e.sh("grep '^Seccomp:' /proc/self/status")
		if !strings.Contains(r.Stdout, "Seccomp:\t2") {
			t.Errorf("Seccomp mode inside: %q, want 2 (filter)", r.Stdout)
		}
	})
}

// TestSeccompNetworkDeny: under --network deny no socket can be made,
// socketpair stays for streams only; --network allow lifts it but for
// AF_UNIX, which only --allow-unix-sockets opens (where Landlock cannot
// tell the command's sockets from the host's).
func TestSeccompNetworkDeny(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		want := map[string]string{"socket-inet": "EPERM", "socket-unix": "EPERM", "socketpair-stream": "ok", "socketpair-dgram-cloexec": "EPERM"}
		for name, w := range want {
			if got := e.probeIn(t, name); got != w {
				t.Errorf("%s under --network deny: %s, want %s", name, got, w)
			}
		}
		if got := e.probeIn(t, "socket-inet", "--network", "allow"); got != "ok" {
			t.Errorf("socket-inet under --network allow: %s, want ok", got)
		}
		if got := e.probeIn(t, "socket-unix", "--network", "allow", "--landlock", "off"); got != "EPERM" {
			t.Errorf("socket-unix under --network allow --landlock off: %s, want EPERM", got)
		}
		for _, net := range []string{"allow", "deny"} {
			if got := e.probeIn(t, "socket-unix", "--network", net, "--allow-unix-sockets"); got != "ok" {
				t.Errorf("socket-unix under --network %s --allow-unix-sockets: %s, want ok", net, got)
			}
		}
		if got := e.probeIn(t, "socket-inet", "--allow-unix-sockets"); got != "EPERM" {
			t.Errorf("socket-inet under --network deny --allow-unix-sockets: %s, want EPERM", got)
		}
	})
}

// unixListener listens on a path socket anyone may connect to.
func unixListener(t *testing.T, path string) *listener {
	t.Helper()
	l := listenStream(t, "unix", path)
	os.Chmod(path, 0o777)
	t.Cleanup(func() { os.Remove(path) })
	return l
}

// TestToolsWorkUnderFilter: ordinary tools still work with seccomp and
// Landlock in force.
func TestToolsWorkUnderFilter(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.write(filepath.Join(e.proj, "go.mod"), "module example.com/m\n\ngo 1.21\n")
		e.write(filepath.Join(e.proj, "main.go"), "package main\n\nimport \"sync\"\n\nfunc main() {\n\tvar wg sync.WaitGroup\n\tfor i := 0; i < 8; i++ {\n\t\twg.Add(1)\n\t\tgo func() { defer wg.Done() }()\n\t}\n\twg.Wait()\n\tprintln(\"threads ok\")\n}\n")
		e.write(filepath.Join(e.proj, "Makefile"), "all:\n\t@echo made\n")
		e.chownAll()
		goBin, _ := exec.LookPath("go")
		steps := map[string]string{
			"git":    "git init -q r && cd r && git -c user.name=z -c user.email=z@e commit -q --allow-empty -m x && git log --oneline | grep -q x",
			"python": "python3 -c 'import threading; t=threading.Thread(target=print, args=(\"py\",)); t.start(); t.join()'",
			"go":     goBin + " build -o m . && ./m",
			"node":   "node -e 'console.log(require(\"os\").cpus().length > 0)'",
			"make":   "make",
			"tar":    "tar cf x.tar go.mod && tar tf x.tar",
			"curl":   "curl --version",
		}
		for name, script := range steps {
			r := e.sh(script, "--env", "GOCACHE="+e.tmp+"/gocache", "--env", "GOFLAGS=-mod=mod", "--env", "GOTOOLCHAIN=local")
			mustSucceed(t, r, name)
		}
	})
}

// TestUserSeccompProfile: a user profile replaces the base list and is in
// force; a malformed one is a usage error naming the file.
func TestUserSeccompProfile(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		good := filepath.Join(e.base, "profile.json")
		e.write(good, `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}`)
		r := e.sh("mkdir newdir", "--seccomp-profile", good)
		mustFail(t, r, "mkdir under a profile that blocks it")
		harness.MustNotExist(t, filepath.Join(e.proj, "newdir"))
		mustSucceed(t, e.sh("mkdir newdir"), "mkdir under the built-in profile")
		if got := e.probeIn(t, "socket-unix", "--seccomp-profile", good); got != "EPERM" {
			t.Errorf("network deny additions dropped with a user profile: socket-unix = %s", got)
		}
		bad := filepath.Join(e.base, "bad.json")
		e.write(bad, `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_EXPLODE"}]}`)
		r = e.run("exec", "--seccomp-profile", bad, "--", "true")
		if r.Code != 2 || !strings.Contains(r.Stderr, bad) || !strings.Contains(r.Stderr, "action") {
			t.Errorf("malformed profile: want exit 2 naming the file and field\n%s", r)
		}
	})
}
