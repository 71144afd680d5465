package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// noUserns runs zsandbox with args inside an outer bwrap that forbids user
// namespaces: the host has no room for the bwrap backend, the situation
// --backend landlock is for. The outer sandbox shares everything else.
func (e *env) noUserns(t *testing.T, dir string, args ...string) result {
	t.Helper()
	return harness.Run(t, e.noUsernsCommand(dir, args...))
}

// noUsernsCommand is the command noUserns runs, for callers that set its
// standard descriptors.
func (e *env) noUsernsCommand(dir string, args ...string) *exec.Cmd {
	bwrapPath, _ := exec.LookPath("bwrap")
	cmd := e.command(dir)
	cmd.Path = bwrapPath
	cmd.Args = append([]string{"bwrap", "--dev-bind", "/", "/", "--unshare-user", "--disable-userns", "--", zsandbox}, args...)
	return cmd
}

// alone runs a shell script under --backend landlock where user namespaces
// are unavailable.
func (e *env) alone(t *testing.T, script string) result {
	t.Helper()
	return e.noUserns(t, e.proj, "exec", "--backend", "landlock", "--no-warning", "--", "sh", "-c", script)
}

// TestAutoBackendWithoutUsernsNamesLandlock: where bwrap cannot work, the
// default backend fails closed and the hint names --backend landlock.
func TestAutoBackendWithoutUsernsNamesLandlock(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.noUserns(t, e.proj, "exec", "--", "touch", "ran")
		if r.Code != 127 || !strings.Contains(r.Stderr, "--backend landlock") {
			t.Errorf("want 127 and a hint naming --backend landlock\n%s", r)
		}
		harness.MustNotExist(t, filepath.Join(e.proj, "ran"))
	})
}

// TestAloneBackend attacks the Landlock-only backend where user namespaces
// are unavailable. As root it refuses to run (Landlock leaves root's owner
// rights over system files unfenced); as a user every attack fails,
// checked from outside, and ordinary work succeeds.
func TestAloneBackend(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		if e.id.UID == 0 {
			r := e.alone(t, "touch ran")
			if r.Code != 127 || !strings.Contains(r.Stderr, "refuses to run as root") {
				t.Errorf("root: want 127 refusal\n%s", r)
			}
			harness.MustNotExist(t, filepath.Join(e.proj, "ran"))
			return
		}
		aloneFilesystem(t, e)
		aloneNetwork(t, e)
		aloneProcesses(t, e)
		aloneWork(t, e)
	})
}

func aloneFilesystem(t *testing.T, e *env) {
	outFile := filepath.Join(e.outside, "file")
	for _, script := range []string{
		"echo evil > " + outFile, "echo evil > $HOME/planted", "ln -s " + outFile + " l && echo evil > l",
		"echo evil > /proc/self/root" + outFile, "echo evil > ../../outside/file",
	} {
		mustFail(t, e.alone(t, script), script)
	}
	harness.MustContain(t, outFile, "original\n")
	harness.MustNotExist(t, filepath.Join(e.home, "planted"))
	for _, script := range []string{
		"cat $HOME/.ssh/id_rsa", "cat ../.aws/credentials", "cat /proc/self/root" + e.home + "/.netrc",
		"ln -s $HOME/.ssh/id_rsa k && cat k", "grep -r ZS-SECRET $HOME", "head -c 1 /dev/kmsg",
	} {
		r := e.alone(t, script)
		mustFail(t, r, script)
		assertNoSecret(t, e, r, script)
	}
}

func aloneNetwork(t *testing.T, e *env) {
	tcp := listenStream(t, "tcp", "127.0.0.1:0")
	udp := listenUDP(t)
	abstract := "zsandbox-e2e-" + harness.RandHex(4)
	abs := listenStream(t, "unix", "@"+abstract)
	sock := "/tmp/zsandbox-e2e-" + harness.RandHex(4) + ".sock"
	ux := unixListener(t, sock)
	for _, a := range [][]string{{"tcp", tcp.addr}, {"udp", udp.addr}, {"abstract", abstract}, {"unix", sock}} {
		mustFail(t, e.alone(t, attackBin+" "+a[0]+" "+a[1]), "connect "+a[0])
	}
	for _, l := range []*listener{tcp, udp, abs, ux} {
		l.quiet(t, "--backend landlock")
	}
	for _, name := range []string{"tiocsti-high-bits", "io_uring_setup"} {
		r := e.alone(t, attackBin+" syscall "+name)
		if got := strings.TrimSpace(strings.SplitN(r.Stdout, "\n", 2)[0]); got != "EPERM" {
			t.Errorf("%s under --backend landlock: %q, want EPERM\n%s", name, got, r)
		}
	}
}

func aloneProcesses(t *testing.T, e *env) {
	host := hostProcess(t, e)
	pid := strconv.Itoa(host.Process.Pid)
	e.alone(t, attackBin+" kill "+pid)
	e.alone(t, "kill -9 "+pid)
	time.Sleep(20 * time.Millisecond)
	if err := host.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("host process killed from --backend landlock: %v", err)
	}
	r := e.alone(t, "grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status")
	for _, want := range []string{"CapEff:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, r)
		}
	}
}

func aloneWork(t *testing.T, e *env) {
	repo(t, e)
	wt := filepath.Join(e.home, "wt")
	git(t, e.proj, "worktree", "add", "-q", wt)
	e.chownAll()
	mustSucceed(t, e.alone(t, "echo ok > f && echo hi > g && git add g && "+sandboxCommit), "write and commit")
	harness.MustContain(t, filepath.Join(e.proj, "f"), "ok\n")
	r := e.noUserns(t, wt, "exec", "--backend", "landlock", "--no-warning", "--", "sh", "-c", sandboxCommit)
	mustSucceed(t, r, "worktree commit")
	if log := git(t, wt, "log", "--oneline"); !strings.Contains(log, "from-sandbox") {
		t.Errorf("worktree commit not on the host:\n%s", log)
	}
	r = e.noUserns(t, e.proj, "exec", "--backend", "landlock", "--", "true")
	if !strings.HasPrefix(r.Stderr, "zsandbox: warning: --backend landlock") {
		t.Errorf("want one warning line without --no-warning:\n%s", r)
	}
	os.Remove(filepath.Join(e.proj, "f"))
}
