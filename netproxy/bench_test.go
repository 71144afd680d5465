package netproxy

import (
	"fmt"
	"io"
	"net"
	"testing"
)

// The benchmarks of docs/benchmarks.md: connection set-up and bulk
// throughput through the proxy's CONNECT tunnel against a direct loopback
// connection to the same server.

func connectVia(b *testing.B, proxy string, port uint16) net.Conn {
	c, err := net.Dial("tcp", proxy)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT echo.test:%d HTTP/1.1\r\n\r\n", port)
	// Read exactly the proxy's answer: what follows is the server's.
	const ok = "HTTP/1.1 200 Connection established\r\n\r\n"
	got := make([]byte, len(ok))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != ok {
		b.Fatalf("CONNECT: %q %v", got, err)
	}
	return c
}

// roundTrip sends one byte and waits for the echo: the connection is up.
func roundTrip(b *testing.B, c net.Conn) {
	if _, err := c.Write([]byte{1}); err != nil {
		b.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkConnectDirect(b *testing.B) {
	up := newUpstream(b, echo)
	for b.Loop() {
		c, err := net.Dial("tcp", up.addr.String())
		if err != nil {
			b.Fatal(err)
		}
		roundTrip(b, c)
		c.Close()
	}
}

func BenchmarkConnectProxy(b *testing.B) {
	up := newUpstream(b, echo)
	_, addr := startProxy(b, rules(b, []string{"echo.test", "127.0.0.1"}, nil))
	for b.Loop() {
		c := connectVia(b, addr, up.addr.Port())
		roundTrip(b, c)
		c.Close()
	}
}

const bulk = 100 << 20

// source writes bulk bytes to every connection and closes it.
func source(c net.Conn, _ *upstream) {
	io.CopyN(c, zeros{}, bulk)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func download(b *testing.B, c net.Conn) {
	n, err := io.Copy(io.Discard, c)
	if err != nil || n != bulk {
		b.Fatalf("downloaded %d bytes, %v", n, err)
	}
	c.Close()
}

func BenchmarkDownloadDirect(b *testing.B) {
	up := newUpstream(b, source)
	b.SetBytes(bulk)
	for b.Loop() {
		c, err := net.Dial("tcp", up.addr.String())
		if err != nil {
			b.Fatal(err)
		}
		download(b, c)
	}
}

func BenchmarkDownloadProxy(b *testing.B) {
	up := newUpstream(b, source)
	_, addr := startProxy(b, rules(b, []string{"echo.test", "127.0.0.1"}, nil))
	b.SetBytes(bulk)
	for b.Loop() {
		download(b, connectVia(b, addr, up.addr.Port()))
	}
}
