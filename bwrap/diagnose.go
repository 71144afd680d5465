package bwrap

import (
	"os"
	"strings"
)

// Cause is one likely reason bwrap cannot build a sandbox on this host, and
// the fix.
type Cause struct {
	Why string
	Fix string
}

// Diagnose looks at the host for the usual reasons user namespaces are
// unavailable. It reads a few files under /proc; read is injected so tests
// can fake a host.
func Diagnose(read func(string) (string, bool)) []Cause {
	if read == nil {
		read = readTrimmed
	}
	var out []Cause
	if v, ok := read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); ok && v == "1" {
		out = append(out, Cause{
			Why: "AppArmor restricts unprivileged user namespaces (Ubuntu 23.10 and later)",
			Fix: "install an AppArmor profile that grants bwrap userns (Ubuntu 24.04: apt-get install apparmor-profiles, then apparmor_parser -r /usr/share/apparmor/extra-profiles/bwrap-userns-restrict), or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
		})
	}
	if v, ok := read("/proc/sys/kernel/unprivileged_userns_clone"); ok && v == "0" {
		out = append(out, Cause{
			Why: "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)",
			Fix: "sysctl -w kernel.unprivileged_userns_clone=1",
		})
	}
	if v, ok := read("/proc/sys/user/max_user_namespaces"); ok && v == "0" {
		out = append(out, Cause{
			Why: "user namespaces are disabled (user.max_user_namespaces=0)",
			Fix: "sysctl -w user.max_user_namespaces=15000",
		})
	}
	if v, ok := read("/proc/version"); ok && strings.Contains(v, "Microsoft") && !strings.Contains(v, "WSL2") {
		out = append(out, Cause{Why: "this is WSL1, which has no namespaces", Fix: "use WSL2 (wsl --set-version <distro> 2)"})
	}
	if inContainer(read) {
		out = append(out, Cause{
			Why: "running inside a container whose seccomp or AppArmor profile blocks namespaces (Docker's default does)",
			Fix: "run the container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined, or run zsandbox on the host",
		})
	}
	return out
}

func inContainer(read func(string) (string, bool)) bool {
	for _, marker := range []string{"/.dockerenv", "/run/.containerenv"} {
		if _, ok := read(marker); ok {
			return true
		}
	}
	v, _ := read("/proc/1/cgroup")
	return strings.Contains(v, "docker") || strings.Contains(v, "containerd") || strings.Contains(v, "kubepods")
}

func readTrimmed(p string) (string, bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}
