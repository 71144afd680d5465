package main

import (
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
)

func TestParsePortAndMount(t *testing.T) {
	good := map[string]contexts.Port{
		"8080:80":            {HostPort: 8080, ContainerPort: 80},
		"0.0.0.0:0:3000/udp": {HostIP: "0.0.0.0", ContainerPort: 3000, Proto: "udp"},
	}
	for in, want := range good {
		if got, err := parsePort(in); err != nil || got != want {
			t.Errorf("parsePort(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"80", "a:80", "1:2:3:4", "8080:80/sctp", "8080:0", "99999:80"} {
		if _, err := parsePort(in); err == nil {
			t.Errorf("parsePort(%q): no error", in)
		}
	}
	if m, err := parseMount("/h:/c:ro"); err != nil || !m.ReadOnly || m.Source != "/h" || m.Target != "/c" {
		t.Errorf("parseMount = %+v %v", m, err)
	}
	for _, in := range []string{"/h", "/h:c", ":/c", "/h:/c:rx"} {
		if _, err := parseMount(in); err == nil {
			t.Errorf("parseMount(%q): no error", in)
		}
	}
}
