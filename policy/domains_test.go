package policy

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseDomain(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{in: "Example.COM.", want: "example.com"},
		{in: "example.com:443", want: "example.com:443"},
		{in: "*.github.com", want: "*.github.com"},
		{in: "*.a.b.c:8080", want: "*.a.b.c:8080"},
		{in: "127.0.0.1", want: "127.0.0.1"},
		{in: "127.0.0.1:80", want: "127.0.0.1:80"},
		{in: "[::1]", want: "[::1]"},
		{in: "[::1]:443", want: "[::1]:443"},
		{in: "::1", want: "[::1]"},
		{in: "::ffff:10.0.0.1", want: "10.0.0.1"},
		{in: "*.com", err: "at least two labels"},
		{in: "*", err: "not allowed in a host name"},
		{in: "a.*.com", err: "not allowed in a host name"},
		{in: "*.*.com", err: "not allowed"},
		{in: "", err: "empty host"},
		{in: ":80", err: "empty host"},
		{in: "a.com:", err: "empty port"},
		{in: "a.com:0", err: "1 to 65535"},
		{in: "a.com:65536", err: "1 to 65535"},
		{in: "a..com", err: "empty or over-long label"},
		{in: "[a.com]", err: "not an IPv6 address"},
		{in: "[::1", err: "missing"},
		{in: "[::1]x", err: "junk"},
		{in: "[::1]:", err: "empty port"},
		{in: "fe80::1%eth0", err: "zone"},
		{in: "bücher.de", err: "xn--"},
		{in: "http://a.com", err: "port"},
		{in: "a.com/x", err: "not allowed"},
		{in: strings.Repeat("a", 64) + ".com", err: "over-long"},
	} {
		d, err := ParseDomain("--allow-domain", tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseDomain(%q) = %v, %v; want error with %q", tt.in, d, err, tt.err)
		case tt.err == "" && (err != nil || d.String() != tt.want):
			t.Errorf("ParseDomain(%q) = %q, %v; want %q", tt.in, d, err, tt.want)
		}
		if err != nil {
			if _, ok := err.(*UsageError); !ok {
				t.Errorf("ParseDomain(%q): error %T, want a usage error", tt.in, err)
			}
		}
	}
}

func TestDomainMatches(t *testing.T) {
	must := func(s string) Domain {
		d, err := ParseDomain("x", s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tt := range []struct {
		pattern, host string
		port          uint16
		want          bool
	}{
		{"example.test", "example.test", 443, true},
		{"example.test", "www.example.test", 443, false},
		{"*.example.test", "a.example.test", 443, true},
		{"*.example.test", "a.b.example.test", 80, true},
		{"*.example.test", "example.test", 443, false},
		{"*.example.test", "evilexample.test", 443, false},
		{"*.example.test", "example.test.evil", 443, false},
		{"*.example.test", "a.example.test.evil", 443, false},
		{"example.test:443", "example.test", 443, true},
		{"example.test:443", "example.test", 80, false},
		{"127.0.0.1", "127.0.0.1", 80, false}, // addresses match only as addresses
	} {
		if got := must(tt.pattern).MatchesName(tt.host, tt.port); got != tt.want {
			t.Errorf("%q matches %s:%d = %v, want %v", tt.pattern, tt.host, tt.port, got, tt.want)
		}
	}
	if !must("127.0.0.1:80").MatchesAddr(netip.MustParseAddr("::ffff:127.0.0.1"), 80) {
		t.Error("a v4-mapped address must match its IPv4 entry")
	}
	if must("127.0.0.1:80").MatchesAddr(netip.MustParseAddr("127.0.0.1"), 81) {
		t.Error("an entry with a port must not match another port")
	}
	if must("[::1]").MatchesAddr(netip.MustParseAddr("127.0.0.1"), 1) {
		t.Error("::1 is not 127.0.0.1")
	}
}

func TestResolveNetwork(t *testing.T) {
	for _, tt := range []struct {
		mode        string
		allow, deny []string
		want        Network
		err         string
	}{
		{want: NetworkDeny},
		{mode: "allow", want: NetworkAllow},
		{allow: []string{"a.test"}, want: NetworkAllowlist},
		{mode: "allowlist", allow: []string{"a.test"}, deny: []string{"b.a.test"}, want: NetworkAllowlist},
		{mode: "allow", allow: []string{"a.test"}, err: "conflicts"},
		{mode: "deny", allow: []string{"a.test"}, err: "conflicts"},
		{mode: "allowlist", err: "at least one --allow-domain"},
		{deny: []string{"a.test"}, err: "narrow an allowlist"},
		{mode: "maybe", allow: []string{"a.test"}, err: "must be allow"},
		{allow: []string{"*.com"}, err: "--allow-domain \"*.com\""},
		{allow: []string{"a.test"}, deny: []string{"*"}, err: "--deny-domain"},
	} {
		n, l, err := resolveNetwork(tt.mode, tt.allow, tt.deny)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("resolveNetwork(%q, %q, %q) = %v; want error with %q", tt.mode, tt.allow, tt.deny, err, tt.err)
			}
			continue
		}
		if err != nil || n != tt.want || (n == NetworkAllowlist) != (l != nil) {
			t.Errorf("resolveNetwork(%q, %q, %q) = %v, %v, %v; want %v", tt.mode, tt.allow, tt.deny, n, l, err, tt.want)
		}
	}
}

// FuzzParseDomain: any pattern parses to one whose canonical form parses
// back to itself, or is a usage error; never a panic.
func FuzzParseDomain(f *testing.F) {
	for _, s := range []string{"a.com", "*.a.com:1", "[::1]:2", "1.2.3.4", "*.com", "[", "a:b:c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDomain("--allow-domain", s)
		if err != nil {
			if _, ok := err.(*UsageError); !ok {
				t.Fatalf("%q: %T", s, err)
			}
			return
		}
		again, err := ParseDomain("--allow-domain", d.String())
		if err != nil || again != d {
			t.Fatalf("%q -> %q -> %v, %v", s, d, again, err)
		}
	})
}
