package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Limits of one proxied connection before its tunnel is open.
const (
	// MaxHeader bounds the bytes a request may take before the proxy has
	// decided: an HTTP request line and headers, or a SOCKS5 handshake.
	MaxHeader = 64 << 10
	// HandshakeTimeout bounds the time from accept to decision.
	HandshakeTimeout = 30 * time.Second
	// DialTimeout bounds one connection attempt to an allowed address.
	DialTimeout = 15 * time.Second
	// MaxConns bounds the connections open at once; more wait in the
	// listener's backlog.
	MaxConns = 512
	// maxRefused bounds the refused targets kept for the hint.
	maxRefused = 64
)

// Resolver looks up a host name's addresses.
type Resolver func(ctx context.Context, host string) ([]netip.Addr, error)

// Proxy serves one sandbox's connections.
type Proxy struct {
	Rules Rules
	// Resolve is the host's resolver unless set (tests).
	Resolve Resolver

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closed  bool
	refused []string
	seen    map[string]bool
}

// New returns a proxy for rules.
func New(rules Rules) *Proxy {
	if rules.Own == nil {
		rules.Own = hostOwns
	}
	return &Proxy{Rules: rules, conns: map[net.Conn]struct{}{}, seen: map[string]bool{}}
}

// Serve accepts connections on l until l is closed or Close is called.
func (p *Proxy) Serve(l net.Listener) error {
	sem := make(chan struct{}, MaxConns)
	for {
		sem <- struct{}{}
		c, err := l.Accept()
		if err != nil {
			return err
		}
		if !p.track(c) {
			c.Close()
			return net.ErrClosed
		}
		go func() {
			defer func() { <-sem }()
			defer p.untrack(c)
			p.handle(c)
		}()
	}
}

// Close ends every connection the proxy has open; Serve's listener is the
// caller's to close.
func (p *Proxy) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
}

// Refused lists the targets (host:port) the proxy refused, first first,
// each once.
func (p *Proxy) Refused() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.refused...)
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

func (p *Proxy) record(err error) {
	var r *Refusal
	if !errors.As(err, &r) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.seen[r.Target] && len(p.refused) < maxRefused {
		p.seen[r.Target] = true
		p.refused = append(p.refused, r.Target)
	}
}

// handle serves one connection: the first byte tells SOCKS5 (version 5)
// from HTTP.
func (p *Proxy) handle(c net.Conn) {
	c.SetDeadline(time.Now().Add(HandshakeTimeout))
	lim := &io.LimitedReader{R: c, N: MaxHeader}
	br := bufio.NewReaderSize(lim, MaxHeader)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	var server net.Conn
	var req *http.Request // an absolute-URI request to forward; nil for a tunnel
	if first[0] == socksVersion {
		server = p.socks(c, br)
	} else {
		server, req = p.http(c, br)
	}
	if server == nil {
		return
	}
	defer server.Close()
	// Decided: the handshake's bounds end here, also for the body of a
	// forwarded request (which br reads) and the response copied back.
	c.SetDeadline(time.Time{})
	lim.N = math.MaxInt64
	if req != nil {
		forward(c, req, server)
		return
	}
	tunnel(c, br, server)
}

// connect decides host:port and dials the address it checked, never the
// name again: a second lookup could answer differently (DNS rebinding).
func (p *Proxy) connect(ctx context.Context, host string, port uint16) (net.Conn, error) {
	host = Name(host)
	if err := p.Rules.CheckHost(host, port); err != nil {
		p.record(err)
		return nil, err
	}
	addrs, err := p.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	var ok []netip.Addr
	var refusal error
	for _, a := range addrs {
		if err := p.Rules.CheckAddr(host, a, port); err != nil {
			refusal = cmpOr(refusal, err)
			continue
		}
		ok = append(ok, a)
	}
	if len(ok) == 0 {
		if refusal == nil {
			refusal = fmt.Errorf("%s: no address", target(host, port))
		}
		p.record(refusal)
		return nil, refusal
	}
	var d net.Dialer
	for _, a := range ok {
		dctx, cancel := context.WithTimeout(ctx, DialTimeout)
		c, e := d.DialContext(dctx, "tcp", netip.AddrPortFrom(a, port).String())
		cancel()
		if e == nil {
			return c, nil
		}
		err = e
	}
	return nil, err
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// lookup returns host's addresses; an IP literal is itself.
func (p *Proxy) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	resolve := p.Resolve
	if resolve == nil {
		resolve = hostResolver
	}
	addrs, err := resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot resolve: %w", host, err)
	}
	return addrs, nil
}

// hostResolver is the resolver of zsandbox's own process, outside the
// sandbox; a test build may replace it (testresolve.go).
var hostResolver Resolver = func(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// hostOwns reports whether a is this host's own address: one of its
// interfaces' (listed at each decision: addresses come and go while a
// command runs), or one a local route delivers here. When the interfaces
// cannot be listed every address counts as the host's: the proxy fails
// closed.
func hostOwns(a netip.Addr) bool {
	a = a.Unmap()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true
	}
	for _, ia := range addrs {
		if n, ok := ia.(*net.IPNet); ok {
			if b, ok := netip.AddrFromSlice(n.IP); ok && b.Unmap() == a {
				return true
			}
		}
	}
	return routedHere(a)
}

// routedHere reports whether the kernel delivers a to this host, though
// no interface lists it (a local route, "ip route add local PREFIX dev
// lo"): it then picks a itself as the source of a connection to it. A UDP
// connect only looks the route up; it sends nothing. No route at all is
// not here (the proxy's dial fails as well).
func routedHere(a netip.Addr) bool {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(a, 9)))
	if err != nil {
		return false
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap() == a
}

// Hint is the hint line for the refused targets, or "" when none.
func Hint(refused []string) string {
	if len(refused) == 0 {
		return ""
	}
	const show = 8
	list := strings.Join(refused[:min(len(refused), show)], ", ")
	if len(refused) > show {
		list += fmt.Sprintf(" and %d more", len(refused)-show)
	}
	return "blocked network access to " + list + "; add --allow-domain HOST to allow"
}
