package alone

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// hostSockets are routes out the parent offers besides newListeners': a UDP
// socket on loopback and a unix socket at a path every identity may
// connect to, so only the sandbox stands in the way.
type hostSockets struct {
	udpPort  int
	udpHits  atomic.Int32
	unixPath string
	unixHits atomic.Int32
}

func newHostSockets(t *testing.T, f *aloneFixture) *hostSockets {
	t.Helper()
	h := &hostSockets{unixPath: filepath.Join(f.Base, "daemon.sock")}
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ul, err := net.Listen("unix", h.unixPath)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(h.unixPath, 0o777)
	t.Cleanup(func() { pc.Close(); ul.Close() })
	h.udpPort = pc.LocalAddr().(*net.UDPAddr).Port
	go harness.Receive(pc, &h.udpHits)
	go harness.Accept(ul, &h.unixHits)
	return h
}

// eventually waits a little for a count to reach want.
func eventually(n *atomic.Int32, want int32) int32 {
	for i := 0; i < 50 && n.Load() < want; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	return n.Load()
}

// TestAloneNetworkDeny: no socket reaches the host's listeners: TCP, UDP,
// a unix socket at a path, an abstract unix socket. The listeners see
// nothing.
func TestAloneNetworkDeny(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		l, h := harness.NewListeners(t, f.Fixture), newHostSockets(t, f)
		port := strconv.Itoa(l.TCPPort)
		want := []expect{
			{"connect-tcp:" + port, "EPERM"}, {"bind-tcp:0", "EPERM"},
			{"udp:" + strconv.Itoa(h.udpPort), "EPERM"},
			{"connect-unix:" + h.unixPath, "EPERM"},
			{"connect-abstract:" + l.Abstract, "EPERM"},
		}
		check(t, "deny", f.sandboxed(f.config(true), probes(want)...), want)
		time.Sleep(100 * time.Millisecond)
		if n := l.TCPHits.Load() + l.UnixHits.Load() + h.udpHits.Load() + h.unixHits.Load(); n != 0 {
			t.Errorf("the host's listeners saw %d connections or packets", n)
		}
	})
}

// TestAloneNetworkAllow: with --network allow the host network is shared
// (loopback TCP and UDP, a unix socket at a path: a stated gap), while
// Landlock's scoping still refuses the abstract unix socket.
func TestAloneNetworkAllow(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		l, h := harness.NewListeners(t, f.Fixture), newHostSockets(t, f)
		want := []expect{
			{"connect-tcp:" + strconv.Itoa(l.TCPPort), "ok"},
			{"udp:" + strconv.Itoa(h.udpPort), "ok"},
			{"connect-unix:" + h.unixPath, "ok"},
			{"connect-abstract:" + l.Abstract, "EPERM"},
		}
		check(t, "allow", f.sandboxed(f.config(false), probes(want)...), want)
		if eventually(&l.TCPHits, 1) != 1 || eventually(&h.udpHits, 1) != 1 || l.UnixHits.Load() != 0 {
			t.Errorf("listeners: tcp %d, udp %d, abstract %d; want 1, 1, 0", l.TCPHits.Load(), h.udpHits.Load(), l.UnixHits.Load())
		}
	})
}

// TestAloneProcesses: a host process of the same user can be seen but not
// signalled, traced or read through /proc; it is still alive afterwards.
func TestAloneProcesses(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		l := harness.NewListeners(t, f.Fixture)
		pid := strconv.Itoa(l.Victim.Process.Pid)
		proc := "/proc/" + pid
		want := []expect{
			{"kill:" + pid + ":15", "EPERM"}, {"kill:" + pid + ":0", "EPERM"},
			{"ptrace:" + pid, "EPERM"},
			{"read:" + proc + "/environ", "EACCES"}, {"read:" + proc + "/mem", "EACCES"},
			{"readlink:" + proc + "/cwd", "EACCES"}, {"readlink:" + proc + "/root", "EACCES"},
			{"readlink:" + proc + "/fd/0", "EACCES"},
			{"read:" + proc + "/cmdline", "ok"}, // the stated gap: no PID namespace
		}
		check(t, "sandboxed", f.sandboxed(f.config(true), probes(want)...), want)
		if !l.VictimAlive() {
			t.Errorf("the host process was killed")
		}
		ctl := []expect{{"kill:" + pid + ":0", "ok"}, {"read:" + proc + "/environ", "ok"}, {"readlink:" + proc + "/cwd", "ok"}}
		check(t, "control", f.direct(probes(ctl)...), ctl)
	})
}

// TestAloneRefuses: what cannot be enforced runs nothing: a hidden path
// inside a writable root, a broken seccomp filter. A missing or
// unexecutable command gets 127 or 126, like stage 2.
func TestAloneRefuses(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		f.Write(filepath.Join(f.Root, "noexec"), "#!/bin/sh\n")
		inHome := f.config(true)
		inHome.Writable = append(inHome.Writable, f.home)
		ssh := filepath.Join(f.home, ".ssh")
		tests := []struct {
			name   string
			c      Config
			env    []string
			argv   []string
			code   int
			stderr string
		}{
			{"hidden path inside a writable root", inHome, nil, nil, 127,
				"zsandbox: error: " + (&Error{Path: ssh, Root: f.home}).Error() + "; the command did not run\n" +
					"zsandbox: hint: " + (&Error{Path: ssh, Root: f.home}).Hint() + "\n"},
			{"broken seccomp filter", f.config(true), []string{"ZSANDBOX_ALONE_BPF=garbage"}, nil, 127,
				"--backend landlock: seccomp filter: "},
			{"not found", f.config(true), nil, []string{"no-such-command-zs"}, 127,
				"zsandbox: error: no-such-command-zs: command not found\n"},
			{"not executable", f.config(true), nil, []string{f.Root + "/noexec"}, 126,
				"zsandbox: error: " + f.Root + "/noexec: cannot execute: permission denied\n"},
		}
		for i, tt := range tests {
			marker := filepath.Join(f.Root, "ran"+strconv.Itoa(i))
			argv := tt.argv
			if argv == nil {
				argv = []string{"touch", marker}
			}
			r := harness.Run(t, f.aloneCmd(tt.c, argv, tt.env))
			if r.Code != tt.code || !strings.Contains(r.Stderr, tt.stderr) || r.Stdout != "" {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q", tt.name, r.Code, r.Stdout, r.Stderr, tt.code, tt.stderr)
			}
			harness.MustNotExist(t, marker)
		}
		marker := filepath.Join(f.Root, "ran")
		if r := f.alone(f.config(true), []string{"touch", marker}); r.Code != 0 || r.Stderr != "" {
			t.Errorf("control: exit %d, stderr %q", r.Code, r.Stderr)
		}
		harness.MustContain(t, marker, "")
	})
}

// TestAloneWithoutLandlock: on a kernel without Landlock (simulated by an
// outer filter failing landlock_create_ruleset with ENOSYS) nothing runs:
// there is no downgrade.
func TestAloneWithoutLandlock(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	bwrap := harness.Bwrap(t)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		marker := filepath.Join(f.Root, "ran")
		cmd := f.aloneCmd(f.config(true), []string{"touch", marker}, nil, bwrap, "--dev-bind", "/", "/", "--seccomp", "3", "--")
		cmd.ExtraFiles = []*os.File{harness.ENOSYSFilter(t)}
		r := harness.Run(t, cmd)
		e := &ABIError{}
		want := "zsandbox: error: " + e.Error() + "; the command did not run\nzsandbox: hint: " + e.Hint() + "\n"
		if r.Code != 127 || r.Stderr != want {
			t.Errorf("exit %d, stderr %q; want 127, %q", r.Code, r.Stderr, want)
		}
		harness.MustNotExist(t, marker)
	})
}

// TestAloneWhereBwrapCannot runs the backend inside an outer bwrap that
// disables user namespaces and, for root, keeps only Docker's default
// capabilities (no CAP_SYS_ADMIN): bwrap itself fails there, the
// Landlock-only backend confines the command.
func TestAloneWhereBwrapCannot(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	bwrap := harness.Bwrap(t)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		outer := []string{bwrap, "--dev-bind", "/", "/", "--unshare-user", "--disable-userns"}
		if id.UID == 0 {
			outer = append(outer, "--cap-drop", "ALL")
			for _, c := range []string{"CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID", "SETUID",
				"SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE"} {
				outer = append(outer, "--cap-add", "CAP_"+c)
			}
		}
		outer = append(outer, "--")
		inner := append(append([]string{}, outer...), bwrap, "--ro-bind", "/", "/", "true")
		if r := harness.Run(t, f.Command(inner[0], inner[1:])); r.Code == 0 {
			t.Fatalf("control: bwrap works inside the outer sandbox, so it does not model a host without user namespaces")
		}
		key := filepath.Join(f.home, ".ssh", "id_rsa")
		want := []expect{
			{"create:" + f.Root + "/new", "ok"}, {"create:" + f.Outside + "/new", "EACCES"},
			{"read:" + key, "EACCES"}, {"read:" + f.home + "/.netrc-old", "ok"},
			{"status:CapEff", "0000000000000000"}, {"status:NoNewPrivs", "1"}, {"status:Seccomp", "2"},
		}
		cmd := f.aloneCmd(f.config(true), append([]string{harness.Binary(t)}, probes(want)...), []string{helperEnv + "=alone"}, outer...)
		check(t, "inside", f.probeRun(cmd), want)
		harness.MustNotExist(t, filepath.Join(f.Outside, "new"))
	})
}

// TestAloneHiddenAppearsLater: a hidden path that did not exist at the
// start, created by the host while the command runs, is unreadable; the
// control without HiddenMissing shows the test would see it.
func TestAloneHiddenAppearsLater(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		for _, tell := range []bool{true, false} {
			f := newAloneFixture(t, id)
			aws := filepath.Join(f.home, ".aws")
			c := Config{Writable: []string{f.Root}, NetworkDeny: true}
			if tell {
				c.HiddenMissing = []string{aws}
			}
			ready, gone := filepath.Join(f.Root, "ready"), filepath.Join(f.Root, "go")
			script := "touch " + ready + "; i=0; while [ ! -e " + gone + " ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; cat " + aws + "/credentials"
			cmd := f.aloneCmd(c, []string{"sh", "-c", script}, nil)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 200; i++ {
				if _, err := os.Stat(ready); err == nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			f.Mkdir(aws)
			f.Write(filepath.Join(aws, "credentials"), f.secret+"\n")
			f.Write(gone, "")
			cmd.Wait()
			if leaked := strings.Contains(out.String(), f.secret); leaked == tell {
				t.Errorf("HiddenMissing set %v: secret read = %v\n%s", tell, leaked, out.String())
			}
		}
	})
}

// TestAloneGapsHold checks that the gaps Gaps states are real on this
// kernel, so the list stays true: when one of these starts failing, a
// kernel closed the gap and the list must say so.
func TestAloneGapsHold(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		shmKey := 0x5a5a0000 + int(randUint16())
		shmID, err := unix.SysvShmGet(shmKey, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o666)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.SysvShmCtl(shmID, unix.IPC_RMID, nil) })
		mq := "zsandbox-alone-" + harness.RandHex(4)
		if err := mqCreate(mq); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { mqUnlink(mq) })
		file := filepath.Join(f.Outside, "file")
		want := []expect{
			{"chmod:" + file + ":606", "ok"},
			{"utime:" + file, "ok"},
			{"stat:" + filepath.Join(f.home, ".ssh", "id_rsa"), "ok"},
			{"shm:" + strconv.Itoa(shmKey), "ok"},
			// Not a gap: POSIX message queues are files to Landlock, and no
			// rule grants their file system.
			{"mq:" + mq, "EACCES"},
		}
		check(t, "sandboxed", f.sandboxed(f.config(true), probes(want)...), want)
		ctl := []expect{{"mq:" + mq, "ok"}}
		check(t, "control", f.direct(probes(ctl)...), ctl)
		if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o606 {
			t.Errorf("chmod outside the roots did not show on the host: %v %v", st.Mode(), err)
		}
	})
}

func randUint16() uint16 {
	b := []byte(harness.RandHex(2))
	n, _ := strconv.ParseUint(string(b), 16, 16)
	return uint16(n)
}

func mqCreate(name string) error {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return err
	}
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)), unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o666, 0, 0, 0)
	if errno != 0 {
		return errno
	}
	unix.Close(int(fd))
	return nil
}

func mqUnlink(name string) {
	p, _ := unix.BytePtrFromString(name)
	unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(p)), 0, 0)
}
