package landlock

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// TestKernelBits: the rights spelled out in access.go are the kernel's.
func TestKernelBits(t *testing.T) {
	fs := map[AccessFS]uint64{
		fsExecute: unix.LANDLOCK_ACCESS_FS_EXECUTE, fsWriteFile: unix.LANDLOCK_ACCESS_FS_WRITE_FILE,
		fsReadFile: unix.LANDLOCK_ACCESS_FS_READ_FILE, fsReadDir: unix.LANDLOCK_ACCESS_FS_READ_DIR,
		fsRemoveDir: unix.LANDLOCK_ACCESS_FS_REMOVE_DIR, fsRemoveFile: unix.LANDLOCK_ACCESS_FS_REMOVE_FILE,
		fsMakeChar: unix.LANDLOCK_ACCESS_FS_MAKE_CHAR, fsMakeDir: unix.LANDLOCK_ACCESS_FS_MAKE_DIR,
		fsMakeReg: unix.LANDLOCK_ACCESS_FS_MAKE_REG, fsMakeSock: unix.LANDLOCK_ACCESS_FS_MAKE_SOCK,
		fsMakeFifo: unix.LANDLOCK_ACCESS_FS_MAKE_FIFO, fsMakeBlock: unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK,
		fsMakeSym: unix.LANDLOCK_ACCESS_FS_MAKE_SYM, fsRefer: unix.LANDLOCK_ACCESS_FS_REFER,
		fsTruncate: unix.LANDLOCK_ACCESS_FS_TRUNCATE, fsIoctlDev: unix.LANDLOCK_ACCESS_FS_IOCTL_DEV,
		fsResolveUnix: unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX,
	}
	for ours, kernel := range fs {
		if uint64(ours) != kernel {
			t.Errorf("%s = %#x, kernel %#x", ours, uint64(ours), kernel)
		}
	}
	net := map[AccessNet]uint64{
		netBindTCP: unix.LANDLOCK_ACCESS_NET_BIND_TCP, netConnectTCP: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP,
		netBindUDP: unix.LANDLOCK_ACCESS_NET_BIND_UDP, netConnectSendUDP: unix.LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP,
	}
	for ours, kernel := range net {
		if uint64(ours) != kernel {
			t.Errorf("%s = %#x, kernel %#x", ours, uint64(ours), kernel)
		}
	}
	if uint64(scopeAbstractUnixSocket) != unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET || uint64(scopeSignal) != unix.LANDLOCK_SCOPE_SIGNAL {
		t.Errorf("scope bits differ from the kernel's")
	}
	// Every right the running kernel knows is one Rules can name.
	if abi := ABI(); abi > 0 && fsAt(abi)&^AccessFS(1<<len(fsNames)-1) != 0 {
		t.Errorf("ABI %d has rights without names", abi)
	}
}

// TestEnforce attacks a process restricted with Enforce, under --network
// deny, and checks every effect from outside.
func TestEnforce(t *testing.T) {
	abi := harness.RequireABI(t, hostABI, 6)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := harness.NewFixture(t, id)
		l := harness.NewListeners(t, f)
		root, out := f.Root, f.Outside
		f.Mkdir(filepath.Join(root, "a"))
		f.Mkdir(filepath.Join(root, "b"))
		f.Write(filepath.Join(root, "a", "f"), "moved\n")
		f.Write(filepath.Join(root, "t"), "to truncate\n")
		f.Write(filepath.Join(root, "stay"), "stays\n")
		victim := strconv.Itoa(l.Victim.Process.Pid)
		c := Config{ABI: hostABI, Mode: ModeRequire, Writable: []string{root}, NetworkDeny: true}
		probes := []struct{ probe, want, why string }{
			{"create:" + root + "/new", "ok", "write inside the root"},
			{"mkdir:" + root + "/d", "ok", "mkdir inside the root"},
			{"rename:" + root + "/a/f:" + root + "/b/f", "ok", "rename across directories inside the root (refer)"},
			{"truncate:" + root + "/t", "ok", "truncate inside the root"},
			{"write:/dev/null", "ok", "tools write to /dev/null (O_TRUNC)"},
			{"read:" + out + "/file", "ok", "reads are allowed everywhere"},
			{"create:" + out + "/new", "EACCES", "write outside the roots"},
			{"mkdir:" + out + "/d", "EACCES", "mkdir outside the roots"},
			{"write:" + out + "/file", "EACCES", "open an outside file for writing"},
			{"truncate:" + out + "/file", "EACCES", "truncate an outside file"},
			{"rename:" + root + "/stay:" + out + "/moved", "EACCES", "move a file out of the root"},
			{"link:" + out + "/file:" + root + "/hard", "EXDEV", "hard-link an outside file into the root to write it"},
			{"symlink:" + out + "/file:" + root + "/sym", "ok", "a symlink itself is a write inside the root"},
			{"write:" + root + "/sym", "EACCES", "write through a symlink to outside"},
			{"connect-tcp:" + strconv.Itoa(l.TCPPort), "EACCES", "TCP connect to a listener outside"},
			{"bind-tcp:0", "EACCES", "TCP bind"},
			{"kill:" + victim + ":15", "EPERM", "SIGTERM a process outside the sandbox"},
			{"connect-abstract:" + l.Abstract, "EPERM", "connect to an abstract unix socket outside"},
		}
		var args []string
		for _, p := range probes {
			args = append(args, p.probe)
		}
		gotABI, got := probeRun(f, c, args...)
		if gotABI != abi || got["enforce"] != "" {
			t.Fatalf("Enforce = %d, %q; want ABI %d, no error", gotABI, got["enforce"], abi)
		}
		for _, p := range probes {
			if got[p.probe] != p.want {
				t.Errorf("%s: %s = %s, want %s", p.why, p.probe, got[p.probe], p.want)
			}
		}
		// The effects, seen from outside.
		harness.MustContain(t, filepath.Join(root, "new"), "x")
		harness.MustContain(t, filepath.Join(root, "b", "f"), "moved\n")
		harness.MustContain(t, filepath.Join(root, "t"), "")
		harness.MustContain(t, filepath.Join(out, "file"), "original\n")
		harness.MustContain(t, filepath.Join(root, "stay"), "stays\n")
		harness.MustNotExist(t, filepath.Join(out, "new"))
		harness.MustNotExist(t, filepath.Join(out, "d"))
		harness.MustNotExist(t, filepath.Join(out, "moved"))
		harness.MustNotExist(t, filepath.Join(root, "hard"))
		time.Sleep(50 * time.Millisecond) // let a stray connection be accepted
		if n := l.TCPHits.Load(); n != 0 {
			t.Errorf("the TCP listener saw %d connections, want 0", n)
		}
		if n := l.UnixHits.Load(); n != 0 {
			t.Errorf("the abstract socket saw %d connections, want 0", n)
		}
		if !l.VictimAlive() {
			t.Errorf("the process outside the sandbox was killed")
		}
	})
}

// TestEnforceNetworkAllow: without --network deny TCP works (the deny above
// is Landlock's, not the test's), and scoping still holds.
func TestEnforceNetworkAllow(t *testing.T) {
	harness.RequireABI(t, hostABI, 6)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := harness.NewFixture(t, id)
		l := harness.NewListeners(t, f)
		c := Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{f.Root}}
		connect := "connect-tcp:" + strconv.Itoa(l.TCPPort)
		abstract := "connect-abstract:" + l.Abstract
		kill := "kill:" + strconv.Itoa(l.Victim.Process.Pid) + ":15"
		_, got := probeRun(f, c, connect, "bind-tcp:0", abstract, kill, "create:"+f.Outside+"/new")
		want := map[string]string{connect: "ok", "bind-tcp:0": "ok", abstract: "EPERM", kill: "EPERM", "create:" + f.Outside + "/new": "EACCES"}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %s, want %s", k, got[k], v)
			}
		}
		time.Sleep(50 * time.Millisecond)
		if n := l.TCPHits.Load(); n != 1 {
			t.Errorf("the TCP listener saw %d connections, want 1", n)
		}
		if n := l.UnixHits.Load(); n != 0 {
			t.Errorf("the abstract socket saw %d connections, want 0", n)
		}
	})
}

// TestEnforceOff is the control: with --landlock off every probe that the
// tests above expect Landlock to stop succeeds, so the denials are
// Landlock's and not file permissions'.
func TestEnforceOff(t *testing.T) {
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := harness.NewFixture(t, id)
		l := harness.NewListeners(t, f)
		c := Config{ABI: hostABI, Mode: ModeOff, Writable: []string{f.Root}, NetworkDeny: true}
		probes := []string{
			"create:" + f.Outside + "/new", "truncate:" + f.Outside + "/file",
			"connect-tcp:" + strconv.Itoa(l.TCPPort), "connect-abstract:" + l.Abstract,
			"kill:" + strconv.Itoa(l.Victim.Process.Pid) + ":0",
		}
		abi, got := probeRun(f, c, probes...)
		if abi != 0 {
			t.Errorf("Enforce(off) = ABI %d, want 0", abi)
		}
		for _, p := range probes {
			if got[p] != "ok" {
				t.Errorf("%s = %s, want ok without Landlock", p, got[p])
			}
		}
	})
}

// TestEnforceAllThreads: when Go can reach every thread (a binary without
// cgo), a goroutine on another thread is confined too. The test binary is
// rebuilt with CGO_ENABLED=0 for this.
func TestEnforceAllThreads(t *testing.T) {
	harness.RequireABI(t, hostABI, 1)
	if testing.Short() {
		t.Skip("builds a second test binary")
	}
	bin := filepath.Join(t.TempDir(), "nocgo.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	f := harness.NewFixture(t, harness.Identity{Name: "self", UID: os.Geteuid(), GID: os.Getegid()})
	c := Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{f.Root}}
	other := "other-thread-create:" + f.Outside + "/new"
	inside := "other-thread-create:" + f.Root + "/new"
	r := harness.Run(t, f.Command(bin, c.Command("", []string{other, inside})[2:], helperEnv+"=probe"))
	want := "abi -> " + strconv.Itoa(ABI()) + "\nall threads -> true\n" + other + " -> EACCES\n" + inside + " -> ok\n"
	if diff := cmp.Diff(r.Stdout, want); r.Code != 0 || diff != "" {
		t.Errorf("exit %d, output mismatch (-got +want):\n%s\nstderr:\n%s", r.Code, diff, r.Stderr)
	}
	harness.MustNotExist(t, filepath.Join(f.Outside, "new"))
}

// TestEnforceMissingRoot: a writable root that does not exist is an error,
// never a rule silently dropped.
func TestEnforceMissingRoot(t *testing.T) {
	harness.RequireABI(t, hostABI, 1)
	f := harness.NewFixture(t, harness.Identity{Name: "self", UID: os.Geteuid(), GID: os.Getegid()})
	_, got := probeRun(f, Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{f.Base + "/missing"}}, "read:/")
	want := `landlock rule for "` + f.Base + `/missing": no such file or directory`
	if got["enforce"] != want {
		t.Errorf("Enforce error = %q, want %q", got["enforce"], want)
	}
}
