package netproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// upstream is a TCP server on 127.0.0.1 that counts connections and
// answers with handler.
type upstream struct {
	addr  netip.AddrPort
	hits  atomic.Int32
	mu    sync.Mutex
	heard []string // what each connection sent first (one read)
}

func newUpstream(t testing.TB, handler func(c net.Conn, u *upstream)) *upstream {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	u := &upstream{addr: l.Addr().(*net.TCPAddr).AddrPort()}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u.hits.Add(1)
			go func() { defer c.Close(); handler(c, u) }()
		}
	}()
	return u
}

func echo(c net.Conn, _ *upstream) { io.Copy(c, c) }

// httpServer answers every request with its method, request URI and Host.
func httpServer(c net.Conn, u *upstream) {
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		u.mu.Lock()
		u.heard = append(u.heard, req.Method+" "+req.RequestURI+" "+req.Host)
		u.mu.Unlock()
		body := "hello " + req.RequestURI
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	}
}

// startProxy serves rules on a loopback port; names resolve to 127.0.0.1.
func startProxy(t testing.TB, r Rules) (*Proxy, string) {
	t.Helper()
	p := New(r)
	p.Resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
		if strings.HasSuffix(host, ".test") {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, fmt.Errorf("no such host")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(l)
	t.Cleanup(func() { l.Close(); p.Close() })
	return p, l.Addr().String()
}

func dial(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

func readAll(t testing.TB, c net.Conn) string {
	t.Helper()
	b, _ := io.ReadAll(c)
	return string(b)
}

func TestConnect(t *testing.T) {
	up := newUpstream(t, echo)
	port := up.addr.Port()
	p, addr := startProxy(t, rules(t, []string{"echo.test", "127.0.0.1"}, []string{"bad.test"}))

	c := dial(t, addr)
	fmt.Fprintf(c, "CONNECT echo.test:%d HTTP/1.1\r\nHost: echo.test:%d\r\n\r\nearly", port, port)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("CONNECT allowed: %v %v", resp, err)
	}
	fmt.Fprint(c, " late")
	c.(*net.TCPConn).CloseWrite()
	if got, _ := io.ReadAll(br); string(got) != "early late" {
		t.Errorf("tunnel echoed %q, want %q", got, "early late")
	}

	for _, tt := range []struct{ req, status, body string }{
		{fmt.Sprintf("CONNECT other.test:%d HTTP/1.1\r\n\r\n", port), "403", fmt.Sprintf("blocked network access to other.test:%d (not in the allowlist); add --allow-domain other.test to allow", port)},
		{fmt.Sprintf("CONNECT bad.test:%d HTTP/1.1\r\n\r\n", port), "403", "denied by --deny-domain"},
		{fmt.Sprintf("CONNECT echo.test:%d HTTP/1.1\r\nHost: other.test:%d\r\n\r\n", port, port), "400", "disagrees"},
		{fmt.Sprintf("CONNECT echo.test:%d HTTP/1.1\r\nHost: echo.test\r\nHost: echo.test\r\n\r\n", port), "400", "more than one Host"},
		{"CONNECT echo.test HTTP/1.1\r\n\r\n", "400", "want host:port"},
		{"GET /relative HTTP/1.1\r\nHost: echo.test\r\n\r\n", "400", "absolute http://"},
		{"GET https://echo.test/ HTTP/1.1\r\n\r\n", "400", "absolute http://"},
		{"garbage\r\n\r\n", "400", "bad request"},
		{"GET http://echo.test/ HTTP/1.1\r\n" + strings.Repeat("X-A: b\r\n", MaxHeader/8), "431", "too large"},
	} {
		c := dial(t, addr)
		fmt.Fprint(c, tt.req)
		got := readAll(t, c)
		if !strings.HasPrefix(got, "HTTP/1.1 "+tt.status) || !strings.Contains(got, tt.body) {
			t.Errorf("%q: got %q, want %s with %q", tt.req, got, tt.status, tt.body)
		}
	}
	if n := up.hits.Load(); n != 1 {
		t.Errorf("upstream saw %d connections, want 1 (only the allowed one)", n)
	}
	want := []string{fmt.Sprintf("other.test:%d", port), fmt.Sprintf("bad.test:%d", port)}
	if got := p.Refused(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Refused = %q, want %q", got, want)
	}
}

func TestRebinding(t *testing.T) {
	up := newUpstream(t, echo)
	// The name is allowed but resolves to 127.0.0.1, which is not.
	_, addr := startProxy(t, rules(t, []string{"echo.test"}, nil))
	c := dial(t, addr)
	fmt.Fprintf(c, "CONNECT echo.test:%d HTTP/1.1\r\n\r\n", up.addr.Port())
	if got := readAll(t, c); !strings.Contains(got, "403") || !strings.Contains(got, "a loopback address (allow it explicitly with --allow-domain 127.0.0.1)") {
		t.Errorf("rebinding: got %q", got)
	}
	if up.hits.Load() != 0 {
		t.Error("upstream reached through a name resolving to loopback")
	}
}

func TestAbsoluteURI(t *testing.T) {
	up := newUpstream(t, httpServer)
	port := up.addr.Port()
	_, addr := startProxy(t, rules(t, []string{"web.test", "127.0.0.1"}, nil))

	c := dial(t, addr)
	// A second, pipelined request for another host must never be sent.
	fmt.Fprintf(c, "GET http://web.test:%d/a?b HTTP/1.1\r\nHost: web.test:%d\r\nProxy-Authorization: x\r\n\r\n"+
		"GET http://other.test:%d/evil HTTP/1.1\r\nHost: other.test\r\n\r\n", port, port, port)
	got := readAll(t, c)
	if !strings.Contains(got, "200 OK") || !strings.HasSuffix(got, "hello /a?b") {
		t.Errorf("absolute URI: got %q", got)
	}

	c = dial(t, addr)
	fmt.Fprintf(c, "GET http://web.test:%d/x HTTP/1.1\r\nHost: denied.test\r\n\r\n", port)
	if got := readAll(t, c); !strings.Contains(got, "400") || !strings.Contains(got, "disagrees") {
		t.Errorf("denied Host header: got %q", got)
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	if want := fmt.Sprintf("GET /a?b web.test:%d", port); fmt.Sprint(up.heard) != "["+want+"]" {
		t.Errorf("upstream heard %q, want only %q", up.heard, want)
	}
}

// socksDial runs a SOCKS5 CONNECT for addr (atyp and bytes) and port.
func socksDial(t *testing.T, proxy string, atyp byte, addr []byte, port uint16) (net.Conn, byte) {
	c := dial(t, proxy)
	c.Write([]byte{5, 1, 0})
	var hello [2]byte
	if _, err := io.ReadFull(c, hello[:]); err != nil || hello != [2]byte{5, 0} {
		t.Fatalf("socks greeting: %v %v", hello, err)
	}
	req := []byte{5, 1, 0, atyp}
	if atyp == socksDomain {
		req = append(req, byte(len(addr)))
	}
	req = append(append(req, addr...), byte(port>>8), byte(port))
	c.Write(req)
	var rep [10]byte
	if _, err := io.ReadFull(c, rep[:]); err != nil {
		t.Fatalf("socks reply: %v", err)
	}
	return c, rep[1]
}

func TestSOCKS(t *testing.T) {
	up := newUpstream(t, echo)
	port := up.addr.Port()
	p, addr := startProxy(t, rules(t, []string{"echo.test", "127.0.0.1"}, nil))

	c, code := socksDial(t, addr, socksDomain, []byte("echo.test"), port)
	if code != socksOK {
		t.Fatalf("socks allowed name: reply %d", code)
	}
	c.Write([]byte("ping"))
	c.(*net.TCPConn).CloseWrite()
	if got := readAll(t, c); got != "ping" {
		t.Errorf("socks tunnel echoed %q", got)
	}
	if _, code := socksDial(t, addr, socksIPv4, []byte{127, 0, 0, 1}, port); code != socksOK {
		t.Errorf("socks allowed IPv4 literal: reply %d", code)
	}
	for _, tt := range []struct {
		what string
		atyp byte
		addr []byte
	}{
		{"denied name", socksDomain, []byte("other.test")},
		{"IPv6 literal", socksIPv6, netip.MustParseAddr("::1").AsSlice()},
		{"denied IPv4", socksIPv4, []byte{127, 0, 0, 2}},
		{"name with a NUL", socksDomain, []byte("echo.test\x00.evil")},
	} {
		if _, code := socksDial(t, addr, tt.atyp, tt.addr, port); code != socksNotAllowed {
			t.Errorf("socks %s: reply %d, want %d", tt.what, code, socksNotAllowed)
		}
	}
	// No acceptable method, a BIND, garbage: refused, no panic.
	c = dial(t, addr)
	c.Write([]byte{5, 1, 2})
	if got := readAll(t, c); got != "\x05\xff" {
		t.Errorf("socks user/pass only: %q", got)
	}
	c = dial(t, addr)
	c.Write([]byte{5, 1, 0, 5, 2, 0, 1, 127, 0, 0, 1, 0, 80})
	if got := readAll(t, c); len(got) < 4 || got[3] != socksBadCommand {
		t.Errorf("socks BIND: %q", got)
	}
	if n := up.hits.Load(); n != 2 {
		t.Errorf("upstream saw %d connections, want 2", n)
	}
	if got := len(p.Refused()); got != 4 {
		t.Errorf("Refused = %q, want 4 entries", p.Refused())
	}
}

func TestClose(t *testing.T) {
	up := newUpstream(t, echo)
	p, addr := startProxy(t, rules(t, []string{"echo.test", "127.0.0.1"}, nil))
	c, code := socksDial(t, addr, socksDomain, []byte("echo.test"), up.addr.Port())
	if code != socksOK {
		t.Fatal(code)
	}
	p.Close()
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("a tunnel outlived Close")
	}
}

// FuzzHandle: any bytes from the command end in a reply or a close, never a
// panic, and never a connection to anything but an allowed target.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		"CONNECT a.test:1 HTTP/1.1\r\n\r\n", "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n",
		"\x05\x01\x00\x05\x01\x00\x03\x06a.test\x00\x50", "\x05\x01\x00\x05\x01\x00\x04" + strings.Repeat("\x00", 18),
		"GET http://[::1 HTTP/1.1\r\n\r\n", "\n\n", "\x05",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := New(Rules{})
		p.Resolve = func(context.Context, string) ([]netip.Addr, error) {
			t.Fatal("resolved a name no rule allows")
			return nil, nil
		}
		a, b := net.Pipe()
		done := make(chan struct{})
		go func() { p.handle(a); a.Close(); close(done) }()
		go io.Copy(io.Discard, b)
		b.SetDeadline(time.Now().Add(2 * time.Second))
		b.Write(data)
		b.Close()
		<-done
	})
}
