package bwrap

import (
	"strings"
	"testing"
)

// TestDiagnose fakes hosts: each known reason bwrap cannot make user
// namespaces is named with its fix, a value that does not restrict names
// nothing, and several reasons come in a fixed order.
func TestDiagnose(t *testing.T) {
	const (
		apparmor = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
		clone    = "/proc/sys/kernel/unprivileged_userns_clone"
		maxNS    = "/proc/sys/user/max_user_namespaces"
		version  = "/proc/version"
		cgroup   = "/proc/1/cgroup"
	)
	tests := []struct {
		name string
		host map[string]string
		want []string // a word of each cause's Why, in order
	}{
		{"clean host", map[string]string{apparmor: "0", clone: "1", maxNS: "15000", version: "Linux version 6.12", cgroup: "0::/init.scope"}, nil},
		{"nothing readable", map[string]string{}, nil},
		{"ubuntu apparmor", map[string]string{apparmor: "1"}, []string{"AppArmor"}},
		{"debian clone sysctl", map[string]string{clone: "0"}, []string{"unprivileged_userns_clone=0"}},
		{"max_user_namespaces 0", map[string]string{maxNS: "0"}, []string{"max_user_namespaces=0"}},
		{"WSL1", map[string]string{version: "Linux version 4.4.0-19041-Microsoft"}, []string{"WSL1"}},
		{"WSL2 is fine", map[string]string{version: "Linux version 5.15.90.1-microsoft-standard-WSL2 Microsoft"}, nil},
		{"docker marker", map[string]string{"/.dockerenv": ""}, []string{"container"}},
		{"podman marker", map[string]string{"/run/.containerenv": ""}, []string{"container"}},
		{"kubernetes cgroup", map[string]string{cgroup: "0::/kubepods/burstable/pod1"}, []string{"container"}},
		{"several, in order", map[string]string{apparmor: "1", maxNS: "0", "/.dockerenv": ""}, []string{"AppArmor", "max_user_namespaces=0", "container"}},
	}
	for _, tt := range tests {
		got := Diagnose(func(p string) (string, bool) { v, ok := tt.host[p]; return v, ok })
		if len(got) != len(tt.want) {
			t.Errorf("%s: Diagnose = %+v, want %d causes %q", tt.name, got, len(tt.want), tt.want)
			continue
		}
		for i, c := range got {
			if !strings.Contains(c.Why, tt.want[i]) || c.Fix == "" {
				t.Errorf("%s: cause %d = %+v, want one naming %q, with a fix", tt.name, i, c, tt.want[i])
			}
		}
	}
}

// TestDiagnoseHost reads this host (nil read) without failing.
func TestDiagnoseHost(t *testing.T) {
	for _, c := range Diagnose(nil) {
		if c.Why == "" || c.Fix == "" {
			t.Errorf("cause without why or fix: %+v", c)
		}
	}
}
