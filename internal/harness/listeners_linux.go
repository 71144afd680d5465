//go:build linux

package harness

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"os/exec"
	"sync/atomic"
	"syscall"
	"testing"
)

// Listeners are what the parent offers the sandboxed child to reach: a TCP
// listener on loopback, an abstract unix socket, and a process to signal.
// Each counts what reached it, so an attack is checked from outside.
type Listeners struct {
	TCPPort  int
	Abstract string
	TCPHits  atomic.Int32
	UnixHits atomic.Int32
	Victim   *exec.Cmd
}

// NewListeners starts them; the victim runs as f's identity.
func NewListeners(t *testing.T, f *Fixture) *Listeners {
	t.Helper()
	l := &Listeners{Abstract: "zsandbox-landlock-test-" + RandHex(6)}
	tl, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ul, err := net.Listen("unix", "@"+l.Abstract)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tl.Close(); ul.Close() })
	l.TCPPort = tl.Addr().(*net.TCPAddr).Port
	go Accept(tl, &l.TCPHits)
	go Accept(ul, &l.UnixHits)
	// The Victim runs as the child's identity, so only Landlock stands
	// between the child and kill(2).
	l.Victim = f.Command("/bin/sleep", []string{"60"})
	if err := l.Victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Victim.Process.Kill(); l.Victim.Wait() })
	return l
}

// Accept counts each connection l accepts in hits, until l closes.
func Accept(l net.Listener, hits *atomic.Int32) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		hits.Add(1)
		c.Close()
	}
}

// Receive counts each datagram pc receives in hits, until pc closes: the
// datagram twin of Accept.
func Receive(pc net.PacketConn, hits *atomic.Int32) {
	buf := make([]byte, 64)
	for {
		if _, _, err := pc.ReadFrom(buf); err != nil {
			return
		}
		hits.Add(1)
	}
}

// VictimAlive reports whether the Victim still runs.
func (l *Listeners) VictimAlive() bool {
	return l.Victim.Process.Signal(syscall.Signal(0)) == nil
}

// RandHex is n random bytes in hex.
func RandHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
