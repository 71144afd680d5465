package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// http decides one HTTP proxy request and returns the connection to the
// allowed server, with the request when it is an absolute-URI one for the
// caller to forward, or nil for CONNECT, whose tunnel the caller copies
// through. It answers a refusal itself and returns nil.
func (p *Proxy) http(c net.Conn, br *bufio.Reader) (net.Conn, *http.Request) {
	head, err := peekHead(br)
	if err != nil {
		reply(c, http.StatusRequestHeaderFieldsTooLarge, "zsandbox proxy: request header too large or incomplete\n")
		return nil, nil
	}
	hosts, err := hostHeaders(head)
	if err != nil {
		reply(c, http.StatusBadRequest, "zsandbox proxy: "+err.Error()+"\n")
		return nil, nil
	}
	req, err := http.ReadRequest(br)
	if err != nil {
		reply(c, http.StatusBadRequest, "zsandbox proxy: bad request\n")
		return nil, nil
	}
	host, port, err := requestTarget(req)
	if err == nil {
		err = sameHost(host, port, hosts)
	}
	if err != nil {
		reply(c, http.StatusBadRequest, "zsandbox proxy: "+err.Error()+"\n")
		return nil, nil
	}
	server, err := p.connect(context.Background(), host, port)
	if err != nil {
		refuse(c, err)
		return nil, nil
	}
	if req.Method != http.MethodConnect {
		return server, req
	}
	if _, err := c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		server.Close()
		return nil, nil
	}
	return server, nil
}

// forward sends req to server in origin form and copies the response back,
// with "Connection: close" both ways, so every request on the connection is
// decided (a second one cannot ride along to another virtual host).
func forward(c net.Conn, req *http.Request, server net.Conn) {
	for _, h := range strings.Split(req.Header.Get("Connection"), ",") {
		if h = strings.TrimSpace(h); h != "" {
			req.Header.Del(h)
		}
	}
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Keep-Alive", "Upgrade", "Te", "Trailer"} {
		req.Header.Del(h)
	}
	req.Close = true
	req.RequestURI = ""
	if err := req.Write(server); err != nil {
		reply(c, http.StatusBadGateway, "zsandbox proxy: "+err.Error()+"\n")
		return
	}
	// Only the one response travels back, and the connection ends with it:
	// further bytes from the client (a pipelined request for another
	// host) are never sent on, whatever the server does with keep-alive.
	resp, err := http.ReadResponse(bufio.NewReader(server), req)
	if err != nil {
		reply(c, http.StatusBadGateway, "zsandbox proxy: "+err.Error()+"\n")
		return
	}
	defer resp.Body.Close()
	resp.Close = true
	resp.Write(bulkWriter{c})
}

// requestTarget is the host and port a request asks for: CONNECT's
// authority (port required) or an absolute http:// URI's host.
func requestTarget(req *http.Request) (string, uint16, error) {
	if req.Method == http.MethodConnect {
		h, p, err := net.SplitHostPort(req.RequestURI)
		if err != nil {
			return "", 0, fmt.Errorf("CONNECT %q: want host:port", req.RequestURI)
		}
		port, err := parsePort(p)
		return h, port, err
	}
	u := req.URL
	if !u.IsAbs() || u.Scheme != "http" || u.Host == "" {
		return "", 0, fmt.Errorf("%q: this proxy takes CONNECT and absolute http:// URIs", req.RequestURI)
	}
	port := uint16(80)
	if p := u.Port(); p != "" {
		var err error
		if port, err = parsePort(p); err != nil {
			return "", 0, err
		}
	}
	return u.Hostname(), port, nil
}

func parsePort(s string) (uint16, error) {
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("port %q: want 1 to 65535", s)
	}
	return uint16(n), nil
}

// sameHost refuses a Host header that names another host than the one
// decided: a server behind an allowed name must not be asked for a denied
// virtual host.
func sameHost(host string, port uint16, headers []string) error {
	for _, h := range headers {
		hh, hp := h, ""
		if strings.HasSuffix(h, "]") || strings.Count(h, ":") == 1 || strings.Contains(h, "]:") {
			if a, b, err := net.SplitHostPort(h); err == nil {
				hh, hp = a, b
			}
		}
		samePort := hp == "" || hp == strconv.Itoa(int(port))
		if Name(hh) != Name(host) || !samePort {
			return fmt.Errorf("Host header %q disagrees with the requested %s", h, target(Name(host), port))
		}
	}
	return nil
}

// peekHead returns the request line and headers, up to and including the
// blank line, without consuming them; the reader's size bounds them.
func peekHead(br *bufio.Reader) ([]byte, error) {
	from := 0
	for {
		n := br.Buffered()
		b, _ := br.Peek(n)
		// Search only the new bytes (and the 3 before them, which may
		// start the terminator): a client sending one byte at a time
		// must not make this quadratic.
		start := max(0, from-3)
		if i := bytes.Index(b[start:], []byte("\n\r\n")); i >= 0 {
			return b[:start+i+3], nil
		}
		if i := bytes.Index(b[start:], []byte("\n\n")); i >= 0 {
			return b[:start+i+2], nil
		}
		if n >= br.Size() {
			return nil, errors.New("header too large")
		}
		from = n
		if _, err := br.Peek(n + 1); err != nil {
			return nil, err
		}
	}
}

// hostHeaders are the Host header values; more than one is refused.
func hostHeaders(head []byte) ([]string, error) {
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(head)))
	if _, err := tp.ReadLine(); err != nil {
		return nil, errors.New("bad request line")
	}
	hdr, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, errors.New("bad header")
	}
	hosts := hdr.Values("Host")
	if len(hosts) > 1 {
		return nil, errors.New("more than one Host header")
	}
	return hosts, nil
}

// reply writes a complete HTTP response with a text body.
func reply(c net.Conn, code int, body string) {
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, http.StatusText(code), len(body), body)
}

// refuse answers a refused or failed connection: 403 naming the host and
// the flag for a refusal, 502 for a host that could not be reached.
func refuse(c net.Conn, err error) {
	var r *Refusal
	if errors.As(err, &r) {
		host := r.Target
		if h, _, e := net.SplitHostPort(r.Target); e == nil {
			host = h
		}
		reply(c, http.StatusForbidden, fmt.Sprintf("zsandbox: blocked network access to %s (%s); add --allow-domain %s to allow\n", r.Target, r.Why, host))
		return
	}
	reply(c, http.StatusBadGateway, "zsandbox proxy: "+err.Error()+"\n")
}
