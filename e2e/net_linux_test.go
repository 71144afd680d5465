package e2e

import (
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// listener counts what reaches a host socket during a test.
type listener struct {
	addr string
	hits atomic.Int32
	stop func()
}

func listenStream(t *testing.T, network, addr string) *listener {
	t.Helper()
	// Read until the client closes: closing first would make its write
	// fail with EPIPE and a reachable listener look refused.
	return serveStream(t, network, addr, func(c net.Conn) { io.Copy(io.Discard, c) })
}

// serveStream is a listener on addr that counts its connections and hands
// each to serve (closed when serve returns).
func serveStream(t *testing.T, network, addr string, serve func(net.Conn)) *listener {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatalf("listen %s %s: %v", network, addr, err)
	}
	l := &listener{addr: ln.Addr().String(), stop: func() { ln.Close() }}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.hits.Add(1)
			go func() { serve(c); c.Close() }()
		}
	}()
	t.Cleanup(l.stop)
	return l
}

func listenUDP(t *testing.T) *listener {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &listener{addr: pc.LocalAddr().String(), stop: func() { pc.Close() }}
	go harness.Receive(pc, &l.hits)
	t.Cleanup(l.stop)
	return l
}

// quiet asserts the host listener saw nothing (after a grace period for
// anything in flight).
func (l *listener) quiet(t *testing.T, what string) {
	t.Helper()
	time.Sleep(50 * time.Millisecond)
	if n := l.hits.Load(); n != 0 {
		t.Errorf("%s: host listener on %s saw %d connections/datagrams, want 0", what, l.addr, n)
	}
}

// TestNetworkDeny: no route to the host's loopback, by TCP, UDP or an
// abstract unix socket.
func TestNetworkDeny(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tcp := listenStream(t, "tcp", "127.0.0.1:0")
		udp := listenUDP(t)
		abstractName := "zsandbox-e2e-" + harness.RandHex(4)
		abs := listenStream(t, "unix", "@"+abstractName)

		mustFail(t, e.run("exec", "--", attackBin, "tcp", tcp.addr), "tcp to host loopback")
		e.run("exec", "--", attackBin, "udp", udp.addr)
		mustFail(t, e.run("exec", "--", attackBin, "abstract", abstractName), "abstract unix socket")
		mustFail(t, e.sh("exec 3<>/dev/tcp/"+strings.Replace(tcp.addr, ":", "/", 1)), "bash-style /dev/tcp")
		tcp.quiet(t, "tcp")
		udp.quiet(t, "udp")
		abs.quiet(t, "abstract")
	})
}

// TestNetworkAllow: the same listener is reachable when asked for.
func TestNetworkAllow(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tcp := listenStream(t, "tcp", "127.0.0.1:0")
		mustSucceed(t, e.run("exec", "--network", "allow", "--", attackBin, "tcp", tcp.addr), "tcp with --network allow")
		if !waitFor(2*time.Second, func() bool { return tcp.hits.Load() == 1 }) {
			t.Errorf("host listener saw %d connections with --network allow, want 1", tcp.hits.Load())
		}
	})
}
