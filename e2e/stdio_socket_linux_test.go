package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A socket on stdin that can still choose its peer was passed as it is:
// `attack stdin-connect SOCK` connected an unconnected unix stream socket
// on fd 0 to a host listener, and `attack stdin-sendto SOCK` sent a
// datagram from a socketpair(SOCK_DGRAM) end to a host datagram socket,
// both under --network deny with unix sockets off. Now such a socket is
// copied through a pipe (bwrap) or refused (--backend landlock, which
// cannot copy); a connected stream pair still passes as a socket.

// stdinSockets are the two peer-choosing sockets, each as an *os.File.
func stdinSockets(t *testing.T) map[string]*os.File {
	t.Helper()
	stream, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_DGRAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(pair[1])
	files := map[string]*os.File{
		"stdin-connect": os.NewFile(uintptr(stream), "unconnected"),
		"stdin-sendto":  os.NewFile(uintptr(pair[0]), "dgram"),
	}
	t.Cleanup(func() {
		for _, f := range files {
			f.Close()
		}
	})
	return files
}

// datagramListener counts datagrams arriving at a unix datagram socket.
func datagramListener(t *testing.T, path string) *atomic.Int64 {
	t.Helper()
	pc, err := net.ListenPacket("unixgram", path)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o777)
	t.Cleanup(func() { pc.Close(); os.Remove(path) })
	var hits atomic.Int64
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			hits.Add(1)
		}
	}()
	return &hits
}

func TestStdinSocketChoosingItsPeer(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		stream := unixListener(t, filepath.Join(e.outside, "stream.sock"))
		dgramPath := filepath.Join(e.outside, "dgram.sock")
		dgram := datagramListener(t, dgramPath)
		targets := map[string]string{"stdin-connect": stream.addr, "stdin-sendto": dgramPath}
		for attack, f := range stdinSockets(t) {
			for _, flags := range [][]string{{"--network", "deny"}, {"--network", "allow"}, {"--hint", "off"}} {
				args := append(append([]string{"exec"}, flags...), "--", attackBin, attack, targets[attack])
				cmd := e.command(e.proj, args...)
				cmd.Stdin = f
				mustFail(t, e.collect(cmd), attack+" "+strings.Join(flags, " "))
			}
			if e.id.UID != 0 { // --backend landlock refuses root
				cmd := e.noUsernsCommand(e.proj, "exec", "--backend", "landlock", "--no-warning", "--", attackBin, attack, targets[attack])
				cmd.Stdin = f
				r := e.collect(cmd)
				if r.Code != 2 || !strings.Contains(r.Stderr, "datagram or unconnected socket") {
					t.Errorf("%s under --backend landlock: want the usage error (exit 2)\n%s", attack, r)
				}
			}
		}
		stream.quiet(t, "stdin-connect")
		if n := dgram.Load(); n != 0 {
			t.Errorf("stdin-sendto: the host datagram socket got %d datagrams, want 0", n)
		}
		// The attack itself works: outside the sandbox it reaches both.
		for attack, f := range stdinSockets(t) {
			out := e.command(e.proj)
			out.Path, out.Args, out.Stdin = attackBin, []string{attackBin, attack, targets[attack]}, f
			if b, err := out.CombinedOutput(); err != nil {
				t.Fatalf("%s fails outside the sandbox too, so this test proves nothing: %v\n%s", attack, err, b)
			}
		}
		if !waitFor(2*time.Second, func() bool { return stream.hits.Load() == 1 && dgram.Load() == 1 }) {
			t.Errorf("outside the sandbox: stream %d, datagram %d hits, want 1 each", stream.hits.Load(), dgram.Load())
		}
		// A connected stream pair (a supervisor's stdio) still passes as a socket.
		pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err != nil {
			t.Fatal(err)
		}
		in := os.NewFile(uintptr(pair[0]), "pair")
		defer in.Close()
		syscall.Close(pair[1])
		cmd := e.command(e.proj, "exec", "--", "sh", "-c", "readlink /proc/self/fd/0")
		cmd.Stdin = in
		if r := e.collect(cmd); r.Code != 0 || !strings.HasPrefix(r.Stdout, "socket:") {
			t.Errorf("a connected stream pair on stdin no longer passes as a socket\n%s", r)
		}
	})
}
