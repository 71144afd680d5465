package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"
)

// The benchmarks of docs/benchmarks.md ("The proxy's tunnel"): connection
// set-up and bulk throughput through the proxy's CONNECT tunnel against a
// direct loopback connection to the same server. The Pair benchmarks run
// one direct and one proxied connection per round, so a machine whose load
// changes during the run (other jobs on a shared machine) moves both alike,
// and report the medians' comparison the issue sets its targets on.
// scripts/bench.sh netproxy runs them.

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

func dialDirect(b *testing.B, up *upstream) net.Conn {
	c, err := net.Dial("tcp", up.addr.String())
	if err != nil {
		b.Fatal(err)
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

// benchProxy is a proxy allowing the upstream's name and address.
func benchProxy(b *testing.B) string {
	_, addr := startProxy(b, rules(b, []string{"echo.test", "127.0.0.1"}, nil))
	return addr
}

func BenchmarkConnectDirect(b *testing.B) {
	up := newUpstream(b, echo)
	for b.Loop() {
		c := dialDirect(b, up)
		roundTrip(b, c)
		c.Close()
	}
}

func BenchmarkConnectProxy(b *testing.B) {
	up := newUpstream(b, echo)
	addr := benchProxy(b)
	for b.Loop() {
		c := connectVia(b, addr, up.addr.Port())
		roundTrip(b, c)
		c.Close()
	}
}

// BenchmarkConnectPair reports added-µs: the median proxied set-up (connect,
// CONNECT, one echoed byte) minus the median direct one (connect, one
// echoed byte). The target is at most 1000.
func BenchmarkConnectPair(b *testing.B) {
	up := newUpstream(b, echo)
	addr := benchProxy(b)
	r := pair(b, func() {
		c := dialDirect(b, up)
		roundTrip(b, c)
		c.Close()
	}, func() {
		c := connectVia(b, addr, up.addr.Port())
		roundTrip(b, c)
		c.Close()
	})
	b.ReportMetric((median(r.proxied)-median(r.direct))/1e3, "added-µs")
	b.ReportMetric(median(r.direct)/1e3, "direct-µs")
}

const bulk = 100 << 20

// source writes bulk bytes to every connection and closes it.
func source(c net.Conn, _ *upstream) {
	io.CopyN(c, zeros{}, bulk)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// download reads the whole response the way a plain client does
// (io.Discard reads 8 KiB at a time).
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
		download(b, dialDirect(b, up))
	}
}

func BenchmarkDownloadProxy(b *testing.B) {
	up := newUpstream(b, source)
	addr := benchProxy(b)
	b.SetBytes(bulk)
	for b.Loop() {
		download(b, connectVia(b, addr, up.addr.Port()))
	}
}

// BenchmarkDownloadPair reports ratio: the proxied download's throughput
// over the direct one's (medians; the target is at least 0.8), and
// cpu-ratio, the same for the process's CPU time per download, which the
// other jobs on a shared machine disturb less than wall time. On a machine
// with no idle core the two agree: the tunnel's cost is its CPU time.
func BenchmarkDownloadPair(b *testing.B) {
	up := newUpstream(b, source)
	addr := benchProxy(b)
	r := pair(b, func() {
		download(b, dialDirect(b, up))
	}, func() {
		download(b, connectVia(b, addr, up.addr.Port()))
	})
	b.ReportMetric(median(r.direct)/median(r.proxied), "ratio")
	b.ReportMetric(bulk/median(r.proxied)*1e3, "proxy-MB/s")
	b.ReportMetric(bulk/median(r.direct)*1e3, "direct-MB/s")
	if median(r.proxiedCPU) > 0 {
		b.ReportMetric(median(r.directCPU)/median(r.proxiedCPU), "cpu-ratio")
	}
}

// rounds is what pair measured: each round's wall and process CPU time of
// the direct and of the proxied run.
type rounds struct{ direct, proxied, directCPU, proxiedCPU []time.Duration }

// pair runs direct and then proxied once per benchmark round, timing each.
func pair(b *testing.B, direct, proxied func()) rounds {
	var r rounds
	time1 := func(run func(), wall, cpu *[]time.Duration) {
		c0, t0 := processCPU(), time.Now()
		run()
		*wall = append(*wall, time.Since(t0))
		*cpu = append(*cpu, processCPU()-c0)
	}
	for b.Loop() {
		time1(direct, &r.direct, &r.directCPU)
		time1(proxied, &r.proxied, &r.proxiedCPU)
	}
	return r
}

func median(d []time.Duration) float64 {
	d = slices.Clone(d)
	slices.Sort(d)
	return float64(d[len(d)/2])
}

// bulkHTTP answers one request with bulk bytes of body.
func bulkHTTP(c net.Conn, _ *upstream) {
	if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
		return
	}
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", bulk)
	io.CopyN(c, zeros{}, bulk)
}

// get sends a GET for uri on c and downloads the response's body.
func get(b *testing.B, c net.Conn, uri string) {
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: echo.test\r\n\r\n", uri)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n != bulk {
		b.Fatalf("downloaded %d bytes, %v", n, err)
	}
	c.Close()
}

// BenchmarkForwardPair is BenchmarkDownloadPair's ratio for a plain HTTP
// request through the proxy (an absolute URI, which the proxy forwards)
// against the same request sent to the server directly.
func BenchmarkForwardPair(b *testing.B) {
	up := newUpstream(b, bulkHTTP)
	addr := benchProxy(b)
	r := pair(b, func() {
		get(b, dialDirect(b, up), "/")
	}, func() {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			b.Fatal(err)
		}
		get(b, c, fmt.Sprintf("http://echo.test:%d/", up.addr.Port()))
	})
	b.ReportMetric(median(r.direct)/median(r.proxied), "ratio")
	b.ReportMetric(bulk/median(r.proxied)*1e3, "proxy-MB/s")
}
