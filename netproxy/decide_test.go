package netproxy

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/policy"
)

func rules(t testing.TB, allow, deny []string) Rules {
	t.Helper()
	var l policy.Allowlist
	for _, s := range allow {
		d, err := policy.ParseDomain("--allow-domain", s)
		if err != nil {
			t.Fatal(err)
		}
		l.Allow = append(l.Allow, d)
	}
	for _, s := range deny {
		d, err := policy.ParseDomain("--deny-domain", s)
		if err != nil {
			t.Fatal(err)
		}
		l.Deny = append(l.Deny, d)
	}
	return Rules{Allowlist: l}
}

func TestCheckHost(t *testing.T) {
	r := rules(t, []string{"pypi.org", "*.example.test", "api.test:443", "203.0.113.7", "[2001:db8::1]:443"},
		[]string{"bad.example.test", "203.0.113.8"})
	for _, tt := range []struct {
		host string
		port uint16
		why  string // "" = allowed
	}{
		{"pypi.org", 443, ""},
		{"pypi.org", 22, ""},
		{"files.pythonhosted.org", 443, "not in the allowlist"},
		{"a.example.test", 443, ""},
		{"example.test", 443, "not in the allowlist"},
		{"evilexample.test", 443, "not in the allowlist"},
		{"example.test.evil", 443, "not in the allowlist"},
		{"bad.example.test", 443, "denied"},
		{"api.test", 443, ""},
		{"api.test", 80, "not in the allowlist"},
		{"203.0.113.7", 80, ""},
		{"203.0.113.8", 80, "denied"},
		{"2001:db8::1", 443, ""},
		{"2001:db8::1", 80, "not in the allowlist"},
		{"::1", 443, "not in the allowlist"},
		{"", 443, "no host"},
		{"pypi.org/x", 443, "not a valid host name"},
		{"fe80::1%lo", 443, "zone"},
	} {
		err := r.CheckHost(tt.host, tt.port)
		if (err == nil) != (tt.why == "") || err != nil && !strings.Contains(err.Error(), tt.why) {
			t.Errorf("CheckHost(%q, %d) = %v, want %q", tt.host, tt.port, err, tt.why)
		}
		var ref *Refusal
		if err != nil && !errors.As(err, &ref) {
			t.Errorf("CheckHost(%q): %T is not a Refusal", tt.host, err)
		}
	}
	if err := rules(t, []string{"*.example.test"}, []string{"*.bad.example.test"}).CheckHost("x.bad.example.test", 1); err == nil {
		t.Error("a deny wildcard must win over an allow wildcard")
	}
}

func TestCheckAddr(t *testing.T) {
	r := rules(t, []string{"svc.test", "127.0.0.1:8080", "203.0.113.51"}, []string{"198.51.100.9"})
	own := map[netip.Addr]bool{netip.MustParseAddr("203.0.113.50"): true, netip.MustParseAddr("203.0.113.51"): true, netip.MustParseAddr("2001:db8::50"): true}
	r.Own = func(a netip.Addr) bool { return own[a] }
	for _, tt := range []struct {
		addr string
		port uint16
		why  string
	}{
		{"93.184.216.34", 443, ""},
		{"2606:2800:220:1:248:1893:25c8:1946", 443, ""},
		{"127.0.0.1", 8080, ""}, // named explicitly
		{"127.0.0.1", 8081, "loopback"},
		{"127.0.0.2", 8080, "loopback"},
		{"::ffff:127.0.0.1", 8081, "loopback"},
		{"::1", 8080, "loopback"},
		{"10.1.2.3", 443, "private"},
		{"172.16.0.1", 443, "private"},
		{"192.168.1.1", 443, "private"},
		{"100.64.0.1", 443, "private"},
		{"fd12::1", 443, "private"},
		{"169.254.169.254", 80, "cloud metadata"},
		{"fd00:ec2::254", 80, "cloud metadata"},
		{"100.100.100.200", 80, "cloud metadata"},
		{"168.63.129.16", 80, "cloud metadata"},
		{"169.254.1.1", 80, "link-local"},
		{"fe80::1", 80, "link-local"},
		{"0.0.0.0", 80, "unspecified"},
		{"::", 80, "unspecified"},
		{"224.0.0.1", 80, "multicast"},
		{"255.255.255.255", 80, "multicast"},
		{"ff02::1", 80, "multicast"},
		{"64:ff9b::7f00:1", 80, "IPv4-embedding"},
		{"2002:7f00:1::", 80, "IPv4-embedding"},
		{"64:ff9b:1::7f00:1", 80, "IPv4-embedding"},
		{"::7f00:1", 80, "IPv4-embedding"},
		{"::ffff:0:7f00:1", 80, "IPv4-embedding"},
		{"198.18.0.1", 80, "reserved"},
		{"203.0.113.50", 80, "host interface"}, // this host's own public address
		{"::ffff:203.0.113.50", 80, "host interface"},
		{"2001:db8::50", 80, "host interface"},
		{"203.0.113.51", 80, ""}, // named explicitly
		{"0.1.2.3", 80, "reserved"},
		{"240.0.0.1", 80, "reserved"},
		{"198.51.100.9", 80, "denied"},
	} {
		err := r.CheckAddr("svc.test", netip.MustParseAddr(tt.addr), tt.port)
		if (err == nil) != (tt.why == "") || err != nil && !strings.Contains(err.Error(), tt.why) {
			t.Errorf("CheckAddr(%s:%d) = %v, want %q", tt.addr, tt.port, err, tt.why)
		}
	}
}

func TestHint(t *testing.T) {
	if Hint(nil) != "" {
		t.Error("no refusal, no hint")
	}
	want := "blocked network access to pypi.org:443, files.pythonhosted.org:443; add --allow-domain HOST to allow"
	if got := Hint([]string{"pypi.org:443", "files.pythonhosted.org:443"}); got != want {
		t.Errorf("Hint = %q, want %q", got, want)
	}
	many := make([]string, 20)
	for i := range many {
		many[i] = "h" + string(rune('a'+i)) + ".test:1"
	}
	if got := Hint(many); !strings.Contains(got, " and 12 more;") {
		t.Errorf("Hint(20) = %q, want the list capped", got)
	}
}

func TestEnv(t *testing.T) {
	caller := []string{"PATH=/bin", "https_proxy=http://evil:1", "No_Proxy=*", "HTTP_PROXYX=keep"}
	got := Env(caller, "127.0.0.1:3128", true)
	want := []string{"PATH=/bin", "HTTP_PROXYX=keep",
		"HTTP_PROXY=http://127.0.0.1:3128", "http_proxy=http://127.0.0.1:3128",
		"HTTPS_PROXY=http://127.0.0.1:3128", "https_proxy=http://127.0.0.1:3128",
		"ALL_PROXY=socks5h://127.0.0.1:3128", "all_proxy=socks5h://127.0.0.1:3128",
		"NO_PROXY=" + NoProxy, "no_proxy=" + NoProxy}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Env =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// An allowed loopback address is the host's: no NO_PROXY, and the
	// caller's is dropped all the same.
	got = Env(caller, "127.0.0.1:3128", false)
	if want := want[:len(want)-2]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Env without loopbackDirect =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
