package plan

import (
	"strings"

	"github.com/zsandbox/zsandbox/netns"
	"github.com/zsandbox/zsandbox/netproxy"
	"github.com/zsandbox/zsandbox/policy"
)

// Allowlist is the network of --allow-domain: the command reaches out only
// through zsandbox's proxy, which runs in zsandbox's own process and
// decides each connection by Rules.
type Allowlist struct {
	Rules policy.Allowlist `json:"rules"`
	// Proxy is the proxy's address as the command sees it: 127.0.0.1:3128
	// in the run's own network namespace (bwrap), or 127.0.0.1 and an
	// ephemeral port chosen at start (Seatbelt, where ProxyPort is "").
	Proxy string `json:"proxy"`
	// Namespace: bwrap starts through the netns role in a network
	// namespace of zsandbox's making (only loopback and the proxy's
	// listener), which bwrap shares (--share-net).
	Namespace bool `json:"namespace"`
	// LoopbackDirect: NO_PROXY sends loopback around the proxy, to the
	// command's own servers; false when an allow entry names a loopback
	// address, which is the host's and reached only through the proxy.
	LoopbackDirect bool `json:"loopbackDirect"`
	// Env are the proxy variables set for the command, replacing the
	// caller's (the port filled in at start on Seatbelt).
	Env []string `json:"env"`
	// RefusedByDefault is what the proxy refuses even though an allow
	// entry names it.
	RefusedByDefault []string `json:"refusedByDefault"`
}

// seatbeltProxy is the proxy's address on macOS before it listens.
const seatbeltProxy = "127.0.0.1:PORT"

// refusedByDefault are the rules of netproxy.Rules.CheckAddr in words.
var refusedByDefault = []string{
	"a name that resolves to a loopback, private (RFC 1918, ULA, CGNAT 100.64/10), link-local, unspecified, multicast, reserved or IPv4-embedding address, to a cloud metadata address (169.254.169.254, fd00:ec2::254, 100.100.100.200, Azure's 168.63.129.16) or to one of this host's own addresses (an interface's, or one a local route delivers here: a daemon listening on every address answers there), unless an allow entry names that address (DNS-rebinding defence; the proxy dials the address it checked)",
	"an absolute-URI request whose Host header names another host",
	"everything but HTTP CONNECT, absolute http:// requests and SOCKS5 CONNECT; UDP and DNS have no route out at all (the proxy resolves names itself)",
	"sockets of any family but unix, IPv4, IPv6 and netlink, and netlink protocols but NETLINK_ROUTE (AF_VSOCK to a hypervisor, AF_PACKET, the host's device events): the seccomp filter refuses them",
}

// allowlist plans the allowlist of p for the backend; nil in the other
// network modes.
func allowlist(p *policy.Policy, backend string) *Allowlist {
	if p.Network != policy.NetworkAllowlist {
		return nil
	}
	a := &Allowlist{Rules: *p.Allowlist, Proxy: netns.Addr, Namespace: backend == Bwrap, RefusedByDefault: refusedByDefault}
	if a.Rules.Deny == nil {
		a.Rules.Deny = []policy.Domain{}
	}
	if backend == Seatbelt {
		a.Proxy = seatbeltProxy
	}
	a.LoopbackDirect = !namesLoopback(a.Rules.Allow)
	a.Env = netproxy.ProxyVars(a.Proxy, a.LoopbackDirect)
	return a
}

// namesLoopback reports whether an allow entry names loopback: an address
// in 127/8 or ::1, or localhost.
func namesLoopback(allow []policy.Domain) bool {
	for _, d := range allow {
		if d.Addr.IsLoopback() || d.Host == "localhost" && !d.Wildcard {
			return true
		}
	}
	return false
}

// allowlistLines are explain's text lines for the allowlist.
func (a *Allowlist) lines() []string {
	if a == nil {
		return nil
	}
	join := func(ds []policy.Domain) string {
		var s []string
		for _, d := range ds {
			s = append(s, d.String())
		}
		return orNone(strings.Join(s, " "))
	}
	where := "inside the sandbox's own network namespace (only loopback; bwrap shares it)"
	switch {
	case a.Proxy == seatbeltProxy:
		where = "on the host's loopback, an ephemeral port chosen at start; the Seatbelt profile allows outbound network to that port only"
	case !a.Namespace:
		// explain must not describe a proxy exec never starts.
		where = "none: this backend cannot make a network namespace, so exec refuses the allowlist (exit 127)"
	}
	out := []string{
		"  allow: " + join(a.Rules.Allow),
		"  deny (wins): " + join(a.Rules.Deny),
		"  proxy: " + a.Proxy + " " + where + "; HTTP CONNECT, absolute http:// URIs, SOCKS5; it runs in zsandbox's own process",
		"  env: " + strings.Join(a.Env, " "),
	}
	for _, r := range a.RefusedByDefault {
		out = append(out, "  refused: "+r)
	}
	return out
}
