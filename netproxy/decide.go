// Package netproxy is the proxy of --allow-domain: it runs inside zsandbox's
// own process, outside the sandbox, and decides every connection the
// command makes through it (HTTP CONNECT, absolute-URI HTTP requests and
// SOCKS5 on one port). The decision (Rules) is pure; the rest is thin I/O
// around it: parse a bounded request, decide, dial the checked address,
// copy bytes.
//
// The proxy is the only way out: on Linux the command has a network
// namespace of its own with only loopback, where zsandbox's listener is the
// one socket that leads anywhere; on macOS the Seatbelt profile allows only
// the proxy's loopback port.
package netproxy

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/zsandbox/zsandbox/policy"
)

// Rules decide connections for one allowlist.
type Rules struct {
	policy.Allowlist
	// Own reports whether an address is one of this host's own (an
	// interface's, or one a local route delivers here): a daemon listening
	// on every address answers there as it does on loopback, and a host
	// with a public address has it on an interface. nil: none (the proxy
	// sets hostOwns).
	Own func(netip.Addr) bool
}

// Refusal is why a connection was refused, in words for the 403 body and
// the hint.
type Refusal struct {
	Target string // host:port as the command asked for it
	Why    string
}

func (r *Refusal) Error() string { return r.Target + ": " + r.Why }

// Name normalizes a requested host: lower case, no trailing dot, IPv6
// brackets and zones stripped.
func Name(host string) string {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// target renders host:port for messages.
func target(host string, port uint16) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return fmt.Sprintf("%s:%d", host, port)
}

// CheckHost decides the requested host (a name or an IP literal, as Name
// returns it) before anything is resolved: a deny entry wins, then an allow
// entry must name it. An IP literal is matched only by address entries.
func (r Rules) CheckHost(host string, port uint16) error {
	refuse := func(why string) error { return &Refusal{Target: target(host, port), Why: why} }
	if host == "" {
		return refuse("no host")
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return refuse("an address with a zone is never allowed")
		}
		if r.deniedAddr(a, port) {
			return refuse("denied by --deny-domain")
		}
		for _, d := range r.Allow {
			if d.MatchesAddr(a, port) {
				return nil
			}
		}
		return refuse("not in the allowlist")
	}
	if policy.HostNameProblem(host) != "" {
		return refuse("not a valid host name")
	}
	for _, d := range r.Deny {
		if d.MatchesName(host, port) {
			return refuse("denied by --deny-domain")
		}
	}
	for _, d := range r.Allow {
		if d.MatchesName(host, port) {
			return nil
		}
	}
	return refuse("not in the allowlist")
}

// CheckAddr decides one address a name resolved to (the DNS-rebinding
// defence): a deny entry for it wins; an address outside the public
// internet (loopback, private, link-local, metadata...) or of this host's
// own interfaces needs an allow entry that names it.
func (r Rules) CheckAddr(host string, a netip.Addr, port uint16) error {
	a = a.Unmap()
	if r.deniedAddr(a, port) {
		return &Refusal{Target: target(host, port), Why: fmt.Sprintf("resolves to %s, denied by --deny-domain", a)}
	}
	class := Special(a)
	if class == "" && r.Own != nil && r.Own(a) {
		class = "host interface"
	}
	if class == "" {
		return nil
	}
	for _, d := range r.Allow {
		if d.MatchesAddr(a, port) {
			return nil
		}
	}
	return &Refusal{Target: target(host, port), Why: fmt.Sprintf("resolves to %s, a %s address (allow it explicitly with --allow-domain %s)", a, class, a)}
}

func (r Rules) deniedAddr(a netip.Addr, port uint16) bool {
	for _, d := range r.Deny {
		if d.MatchesAddr(a, port) {
			return true
		}
	}
	return false
}

// The cloud metadata services, refused by name of their own.
var metadata = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, ...
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("168.63.129.16"),   // Azure's WireServer (the VM agent's goal state, extension settings), a public address
}

var (
	cgnat    = netip.MustParsePrefix("100.64.0.0/10")
	nat64    = netip.MustParsePrefix("64:ff9b::/96")
	nat64l   = netip.MustParsePrefix("64:ff9b:1::/48")  // local-use NAT64 (RFC 8215)
	v4compat = netip.MustParsePrefix("::/96")           // IPv4-compatible (deprecated), :: and ::1 aside
	siit     = netip.MustParsePrefix("::ffff:0:0:0/96") // IPv4-translated (RFC 2765)
	bench    = netip.MustParsePrefix("198.18.0.0/15")   // benchmarking (RFC 2544), used inside networks
	sixto4   = netip.MustParsePrefix("2002::/16")
	teredo   = netip.MustParsePrefix("2001::/32")
	reserve  = netip.MustParsePrefix("240.0.0.0/4")
)

// Special names the class of an address that is not on the public
// internet, or "" for a public one. Addresses that embed an IPv4 address
// (NAT64, 6to4, Teredo) are refused whole: they could lead to any of the
// others.
func Special(a netip.Addr) string {
	a = a.Unmap()
	for _, m := range metadata {
		if a == m {
			return "cloud metadata"
		}
	}
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast(), a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "multicast or broadcast"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsPrivate(), cgnat.Contains(a):
		return "private"
	case nat64.Contains(a), nat64l.Contains(a), v4compat.Contains(a), siit.Contains(a), sixto4.Contains(a), teredo.Contains(a):
		return "IPv4-embedding"
	case reserve.Contains(a), bench.Contains(a), a.Is4() && a.As4()[0] == 0:
		return "reserved"
	}
	return ""
}
