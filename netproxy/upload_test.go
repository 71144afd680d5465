package netproxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// lengthServer answers one request with the length of the body it read.
func lengthServer(c net.Conn, _ *upstream) {
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	n, err := io.Copy(io.Discard, req.Body)
	body := fmt.Sprintf("read %d, %v", n, err)
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}

// An absolute-URI request's body is not part of the bounded handshake: a
// POST larger than MaxHeader reaches the server whole.
func TestAbsoluteURIBody(t *testing.T) {
	up := newUpstream(t, lengthServer)
	_, addr := startProxy(t, rules(t, []string{"web.test", "127.0.0.1"}, nil))
	const size = 4 * MaxHeader
	c := dial(t, addr)
	go fmt.Fprintf(c, "POST http://web.test:%d/up HTTP/1.1\r\nHost: web.test:%d\r\nContent-Length: %d\r\n\r\n%s",
		up.addr.Port(), up.addr.Port(), size, strings.Repeat("x", size))
	if got, want := readAll(t, c), fmt.Sprintf("read %d, <nil>", size); !strings.HasSuffix(got, want) {
		t.Errorf("POST of %d bytes: got %q, want a 200 ending %q", size, got, want)
	}
}

// Bytes a client sends right behind its request, in the same write, are
// part of the tunnel: neither lost in the handshake's buffer nor sent
// before the decision (CONNECT is TestConnect's "early").
func TestSOCKSPipelined(t *testing.T) {
	up := newUpstream(t, echo)
	port := up.addr.Port()
	_, addr := startProxy(t, rules(t, []string{"echo.test", "127.0.0.1"}, nil))
	c := dial(t, addr)
	hello := []byte{5, 1, 0, 5, 1, 0, socksDomain, 9}
	hello = append(append(hello, "echo.test"...), byte(port>>8), byte(port))
	c.Write(append(hello, "payload"...))
	c.(*net.TCPConn).CloseWrite()
	got := readAll(t, c)
	if want := "\x05\x00\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00payload"; got != want {
		t.Errorf("SOCKS request and payload in one write: got %q, want %q", got, want)
	}
}
