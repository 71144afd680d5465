package policy

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// NetworkAllowlist is --allow-domain: the command has its own network
// namespace with only loopback, and reaches the outside only through
// zsandbox's proxy, which lets through the hosts the allowlist names.
const NetworkAllowlist Network = "allowlist"

// Domain is one --allow-domain / --deny-domain pattern: a host name, a
// "*.name" wildcard (subdomains only), or an IP address, each with an
// optional port (0: any port).
type Domain struct {
	// Host is the lower-case name without the "*." of a wildcard, or the
	// address in its canonical form.
	Host     string
	Wildcard bool
	Addr     netip.Addr // valid when the pattern is an IP address
	Port     uint16
}

// String is the pattern in canonical form: "*.example.com:443", "[::1]".
func (d Domain) String() string {
	h := d.Host
	if d.Wildcard {
		h = "*." + h
	}
	if d.Addr.Is6() {
		h = "[" + h + "]"
	}
	if d.Port != 0 {
		h += ":" + strconv.Itoa(int(d.Port))
	}
	return h
}

// MarshalText makes a Domain its pattern in explain's JSON.
func (d Domain) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// ParseDomain parses one pattern. Bad patterns are usage errors naming flag.
func ParseDomain(flag, s string) (Domain, error) {
	bad := func(why string) (Domain, error) {
		return Domain{}, usagef("%s %q: %s", flag, s, why)
	}
	host, port, err := splitHostPort(s)
	if err != nil {
		return bad(err.Error())
	}
	d := Domain{Port: port}
	if a, err := netip.ParseAddr(strings.TrimSuffix(host, ".")); err == nil {
		if a.Zone() != "" {
			return bad("an address with a zone cannot be allowed")
		}
		d.Addr = a.Unmap()
		d.Host = d.Addr.String()
		return d, nil
	}
	if strings.HasPrefix(host, "[") {
		return bad("not an IPv6 address")
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		d.Wildcard = true
		host = rest
		if strings.Count(host, ".") < 1 {
			return bad("a wildcard needs at least two labels after \"*.\" (\"*.example.com\", not \"*.com\")")
		}
	}
	if why := HostNameProblem(host); why != "" {
		return bad(why)
	}
	d.Host = host
	return d, nil
}

// splitHostPort splits "host", "host:port", "[v6]" or "[v6]:port". A bare
// IPv6 address without brackets is taken whole.
func splitHostPort(s string) (string, uint16, error) {
	host, portText := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.Index(s, "]")
		if end < 0 {
			return "", 0, fmt.Errorf("missing \"]\"")
		}
		host, portText = s[1:end], s[end+1:]
		if portText != "" && !strings.HasPrefix(portText, ":") {
			return "", 0, fmt.Errorf("junk after \"]\"")
		}
		portText = strings.TrimPrefix(portText, ":")
		if _, err := netip.ParseAddr(host); err != nil {
			return "", 0, fmt.Errorf("not an IPv6 address in brackets")
		}
		if portText == "" && strings.HasSuffix(s, ":") {
			return "", 0, fmt.Errorf("empty port")
		}
	case strings.Count(s, ":") == 1:
		host, portText, _ = strings.Cut(s, ":")
		if portText == "" {
			return "", 0, fmt.Errorf("empty port")
		}
	}
	if host == "" {
		return "", 0, fmt.Errorf("empty host")
	}
	if portText == "" {
		return host, 0, nil
	}
	n, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || n == 0 {
		return "", 0, fmt.Errorf("port %q: must be a number from 1 to 65535", portText)
	}
	return host, uint16(n), nil
}

// HostNameProblem says what is wrong with a lower-case DNS name, or "".
func HostNameProblem(h string) string {
	if len(h) > 253 {
		return "a host name is at most 253 characters"
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return "empty or over-long label (a host name is labels of 1 to 63 characters separated by dots)"
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Sprintf("%q is not allowed in a host name (write international names in their xn-- form; \"*\" only as a leading \"*.\")", c)
			}
		}
	}
	return ""
}

// MatchesName reports whether d names host (a lower-case DNS name without
// a trailing dot) on port. A wildcard matches strictly below its name:
// "*.example.com" matches "a.example.com", not "example.com" nor
// "evilexample.com".
func (d Domain) MatchesName(host string, port uint16) bool {
	if d.Addr.IsValid() || (d.Port != 0 && d.Port != port) {
		return false
	}
	if d.Wildcard {
		return strings.HasSuffix(host, "."+d.Host)
	}
	return host == d.Host
}

// MatchesAddr reports whether d names the address a on port.
func (d Domain) MatchesAddr(a netip.Addr, port uint16) bool {
	return d.Addr.IsValid() && d.Addr == a.Unmap() && (d.Port == 0 || d.Port == port)
}

// Allowlist is the network of --allow-domain: what the proxy lets through.
// Deny entries win over allow entries.
type Allowlist struct {
	Allow []Domain `json:"allow"`
	Deny  []Domain `json:"deny,omitempty"`
}

// resolveNetwork decides the network mode and the allowlist. Allow entries
// mean the allowlist; with --network allow or deny they are a usage error,
// as are deny entries with nothing to narrow.
func resolveNetwork(mode string, allow, deny []string) (Network, *Allowlist, error) {
	if len(allow) == 0 {
		if len(deny) > 0 {
			return "", nil, usagef("--deny-domain %q: deny entries narrow an allowlist; give at least one --allow-domain", deny[0])
		}
		if Network(mode) == NetworkAllowlist {
			return "", nil, usagef("--network allowlist needs at least one --allow-domain")
		}
		n, err := parseNetwork(mode)
		return n, nil, err
	}
	switch Network(mode) {
	case "", NetworkAllowlist:
	case NetworkAllow, NetworkDeny:
		return "", nil, usagef("--network %s conflicts with --allow-domain %q: allow entries mean the network goes through the allowlist; drop one of them", mode, allow[0])
	default:
		_, err := parseNetwork(mode)
		return "", nil, err
	}
	var l Allowlist
	for _, s := range allow {
		d, err := ParseDomain("--allow-domain", s)
		if err != nil {
			return "", nil, err
		}
		l.Allow = append(l.Allow, d)
	}
	for _, s := range deny {
		d, err := ParseDomain("--deny-domain", s)
		if err != nil {
			return "", nil, err
		}
		l.Deny = append(l.Deny, d)
	}
	return NetworkAllowlist, &l, nil
}
