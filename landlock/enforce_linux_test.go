package landlock

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
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

// listeners are what the parent offers the sandboxed child to reach: a TCP
// listener on loopback, an abstract unix socket, and a process to signal.
// Each counts what reached it, so an attack is checked from outside.
type listeners struct {
	tcpPort  int
	abstract string
	tcpHits  atomic.Int32
	unixHits atomic.Int32
	victim   *exec.Cmd
}

func newListeners(t *testing.T, f *fixture) *listeners {
	t.Helper()
	l := &listeners{abstract: "zsandbox-landlock-test-" + randHex(6)}
	tl, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ul, err := net.Listen("unix", "@"+l.abstract)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close(); ul.Close() })
	l.tcpPort = tl.Addr().(*net.TCPAddr).Port
	go accept(tl, &l.tcpHits)
	go accept(ul, &l.unixHits)
	// The victim runs as the child's identity, so only Landlock stands
	// between the child and kill(2).
	l.victim = f.command("/bin/sleep", []string{"60"})
	if err := l.victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.victim.Process.Kill(); l.victim.Wait() })
	return l
}

func accept(l net.Listener, hits *atomic.Int32) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		hits.Add(1)
		c.Close()
	}
}

func (l *listeners) victimAlive() bool {
	return l.victim.Process.Signal(syscall.Signal(0)) == nil
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// TestEnforce attacks a process restricted with Enforce, under --network
// deny, and checks every effect from outside.
func TestEnforce(t *testing.T) {
	abi := requireLandlock(t, 6)
	eachIdentity(t, func(t *testing.T, id identity) {
		f := newFixture(t, id)
		l := newListeners(t, f)
		root, out := f.root, f.outside
		f.mkdir(filepath.Join(root, "a"))
		f.mkdir(filepath.Join(root, "b"))
		f.write(filepath.Join(root, "a", "f"), "moved\n")
		f.write(filepath.Join(root, "t"), "to truncate\n")
		f.write(filepath.Join(root, "stay"), "stays\n")
		victim := strconv.Itoa(l.victim.Process.Pid)
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
			{"connect-tcp:" + strconv.Itoa(l.tcpPort), "EACCES", "TCP connect to a listener outside"},
			{"bind-tcp:0", "EACCES", "TCP bind"},
			{"kill:" + victim + ":15", "EPERM", "SIGTERM a process outside the sandbox"},
			{"connect-abstract:" + l.abstract, "EPERM", "connect to an abstract unix socket outside"},
		}
		var args []string
		for _, p := range probes {
			args = append(args, p.probe)
		}
		gotABI, got := f.probe(c, args...)
		if gotABI != abi || got["enforce"] != "" {
			t.Fatalf("Enforce = %d, %q; want ABI %d, no error", gotABI, got["enforce"], abi)
		}
		for _, p := range probes {
			if got[p.probe] != p.want {
				t.Errorf("%s: %s = %s, want %s", p.why, p.probe, got[p.probe], p.want)
			}
		}
		// The effects, seen from outside.
		mustContain(t, filepath.Join(root, "new"), "x")
		mustContain(t, filepath.Join(root, "b", "f"), "moved\n")
		mustContain(t, filepath.Join(root, "t"), "")
		mustContain(t, filepath.Join(out, "file"), "original\n")
		mustContain(t, filepath.Join(root, "stay"), "stays\n")
		mustNotExist(t, filepath.Join(out, "new"))
		mustNotExist(t, filepath.Join(out, "d"))
		mustNotExist(t, filepath.Join(out, "moved"))
		mustNotExist(t, filepath.Join(root, "hard"))
		time.Sleep(50 * time.Millisecond) // let a stray connection be accepted
		if n := l.tcpHits.Load(); n != 0 {
			t.Errorf("the TCP listener saw %d connections, want 0", n)
		}
		if n := l.unixHits.Load(); n != 0 {
			t.Errorf("the abstract socket saw %d connections, want 0", n)
		}
		if !l.victimAlive() {
			t.Errorf("the process outside the sandbox was killed")
		}
	})
}

// TestEnforceNetworkAllow: without --network deny TCP works (the deny above
// is Landlock's, not the test's), and scoping still holds.
func TestEnforceNetworkAllow(t *testing.T) {
	requireLandlock(t, 6)
	eachIdentity(t, func(t *testing.T, id identity) {
		f := newFixture(t, id)
		l := newListeners(t, f)
		c := Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{f.root}}
		connect := "connect-tcp:" + strconv.Itoa(l.tcpPort)
		abstract := "connect-abstract:" + l.abstract
		kill := "kill:" + strconv.Itoa(l.victim.Process.Pid) + ":15"
		_, got := f.probe(c, connect, "bind-tcp:0", abstract, kill, "create:"+f.outside+"/new")
		want := map[string]string{connect: "ok", "bind-tcp:0": "ok", abstract: "EPERM", kill: "EPERM", "create:" + f.outside + "/new": "EACCES"}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %s, want %s", k, got[k], v)
			}
		}
		time.Sleep(50 * time.Millisecond)
		if n := l.tcpHits.Load(); n != 1 {
			t.Errorf("the TCP listener saw %d connections, want 1", n)
		}
		if n := l.unixHits.Load(); n != 0 {
			t.Errorf("the abstract socket saw %d connections, want 0", n)
		}
	})
}

// TestEnforceOff is the control: with --landlock off every probe that the
// tests above expect Landlock to stop succeeds, so the denials are
// Landlock's and not file permissions'.
func TestEnforceOff(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id identity) {
		f := newFixture(t, id)
		l := newListeners(t, f)
		c := Config{ABI: hostABI, Mode: ModeOff, Writable: []string{f.root}, NetworkDeny: true}
		probes := []string{
			"create:" + f.outside + "/new", "truncate:" + f.outside + "/file",
			"connect-tcp:" + strconv.Itoa(l.tcpPort), "connect-abstract:" + l.abstract,
			"kill:" + strconv.Itoa(l.victim.Process.Pid) + ":0",
		}
		abi, got := f.probe(c, probes...)
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
	requireLandlock(t, 1)
	if testing.Short() {
		t.Skip("builds a second test binary")
	}
	bin := filepath.Join(t.TempDir(), "nocgo.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	f := newFixture(t, identity{name: "self", uid: os.Geteuid(), gid: os.Getegid()})
	c := Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{f.root}}
	other := "other-thread-create:" + f.outside + "/new"
	inside := "other-thread-create:" + f.root + "/new"
	r := run(t, f.command(bin, c.Command("", []string{other, inside})[2:], helperEnv+"=probe"))
	want := "abi -> " + strconv.Itoa(ABI()) + "\nall threads -> true\n" + other + " -> EACCES\n" + inside + " -> ok\n"
	if diff := cmp.Diff(r.stdout, want); r.code != 0 || diff != "" {
		t.Errorf("exit %d, output mismatch (-got +want):\n%s\nstderr:\n%s", r.code, diff, r.stderr)
	}
	mustNotExist(t, filepath.Join(f.outside, "new"))
}

// TestEnforceMissingRoot: a writable root that does not exist is an error,
// never a rule silently dropped.
func TestEnforceMissingRoot(t *testing.T) {
	requireLandlock(t, 1)
	f := newFixture(t, identity{name: "self", uid: os.Geteuid(), gid: os.Getegid()})
	_, got := f.probe(Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{f.base + "/missing"}}, "read:/")
	want := `landlock rule for "` + f.base + `/missing": no such file or directory`
	if got["enforce"] != want {
		t.Errorf("Enforce error = %q, want %q", got["enforce"], want)
	}
}
