package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seccomp"
)

// hostChecks probes this Linux host for what zsandbox exec needs, then
// reports the facts that explain a failure.
func hostChecks() []check {
	var checks []check
	if bin, err := bwrap.Find(os.Getenv("PATH"), systemBinary); err != nil {
		detail := "not found"
		if err != bwrap.ErrNotFound {
			detail += " (" + err.Error() + ")"
		}
		checks = append(checks, check{Name: "bwrap", Required: true, Detail: detail,
			Fix: "apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora)"})
	} else {
		checks = append(checks, bwrapCheck(bin), usernsCheck(bin))
	}
	return append(checks, seccompCheck(), landlockCheck(), apparmorCheck(), containerCheck(), wslCheck())
}

// systemBinary judges a bwrap found outside a policy (doctor has none)
// with the same rule exec uses.
func systemBinary(path string) (string, error) {
	host, err := hostFacts()
	if err != nil {
		return "", err
	}
	return policy.SystemBinary(host, path, nil)
}

func bwrapCheck(bin string) check {
	cmd := exec.Command(bin, "--version")
	cmd.Env = bwrap.HostEnv(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		return check{Name: "bwrap", Required: true, Detail: bin + " does not run: " + err.Error(), Fix: "reinstall bubblewrap"}
	}
	return check{Name: "bwrap", OK: true, Required: true, Detail: bin + " (" + strings.TrimSpace(string(out)) + ")"}
}

// usernsCheck really builds a sandbox like exec's, running /bin/true.
func usernsCheck(bin string) check {
	cmd := exec.Command(bin, "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "/bin/true")
	cmd.Env = bwrap.HostEnv(os.Environ())
	out, err := cmd.CombinedOutput()
	if err == nil {
		return check{Name: "user namespaces", OK: true, Required: true, Detail: "bwrap built a test sandbox"}
	}
	ch := check{Name: "user namespaces", Required: true,
		Detail: "bwrap could not build a test sandbox: " + strings.TrimSpace(string(out))}
	var fixes []string
	for _, c := range bwrap.Diagnose(nil) {
		fixes = append(fixes, c.Why+": "+c.Fix)
	}
	ch.Fix = strings.Join(fixes, "; ")
	if ch.Fix == "" {
		ch.Fix = "check that unprivileged user namespaces are enabled (sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces)"
	}
	return ch
}

// seccompCheck compiles the built-in filter: the kernel and libseccomp
// must both be there.
func seccompCheck() check {
	status, _ := os.ReadFile("/proc/self/status")
	if !strings.Contains(string(status), "\nSeccomp:") {
		return check{Name: "seccomp", Required: true, Detail: "the kernel has no seccomp", Fix: "use a kernel built with CONFIG_SECCOMP_FILTER"}
	}
	if _, err := seccomp.Compile(seccomp.WithNetworkDeny(seccomp.Default())); err != nil {
		return check{Name: "seccomp", Required: true, Detail: "the filter does not compile: " + err.Error(), Fix: "build zsandbox with cgo and libseccomp (scripts/build.sh)"}
	}
	return check{Name: "seccomp", OK: true, Required: true, Detail: "filter compiles; kernel supports seccomp filters"}
}

func landlockCheck() check {
	abi := landlock.ABI()
	// What --landlock require needs for the default policy.
	need := landlock.RequiredABI(landlock.Config{NetworkDeny: true})
	switch {
	case abi == 0:
		return check{Name: "landlock", Detail: "not available: --landlock auto runs without it, --landlock require refuses",
			Fix: "a kernel ≥ " + landlock.KernelFor(1) + " with CONFIG_SECURITY_LANDLOCK and landlock in the lsm= boot list"}
	case abi < need:
		return check{Name: "landlock", Detail: fmt.Sprintf("ABI %d: auto enforces what it can; require needs ABI %d", abi, need),
			Fix: "a kernel ≥ " + landlock.KernelFor(need) + " for signal and abstract-socket scoping"}
	}
	if abi < 9 {
		return check{Name: "landlock", OK: true, Detail: fmt.Sprintf("ABI %d; below ABI 9 the kernel cannot tell the command's own "+
			"unix sockets from the host's, so socket(AF_UNIX) is refused unless --allow-unix-sockets", abi)}
	}
	return check{Name: "landlock", OK: true, Detail: fmt.Sprintf("ABI %d", abi)}
}

func apparmorCheck() check {
	v, err := os.ReadFile("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
	if err != nil {
		return check{Name: "apparmor", OK: true, Detail: "no user-namespace restriction on this kernel"}
	}
	if strings.TrimSpace(string(v)) != "1" {
		return check{Name: "apparmor", OK: true, Detail: "apparmor_restrict_unprivileged_userns=0"}
	}
	profiles, _ := os.ReadFile("/sys/kernel/security/apparmor/profiles")
	if strings.Contains(string(profiles), "bwrap") {
		return check{Name: "apparmor", OK: true, Detail: "user namespaces restricted, and a bwrap profile is loaded"}
	}
	return check{Name: "apparmor", Detail: "user namespaces restricted and no bwrap profile loaded",
		Fix: "apt-get install apparmor-profiles && apparmor_parser -r /usr/share/apparmor/extra-profiles/bwrap-userns-restrict"}
}

func containerCheck() check {
	var signs []string
	for _, p := range []string{"/.dockerenv", "/run/.containerenv"} {
		if _, err := os.Stat(p); err == nil {
			signs = append(signs, p)
		}
	}
	if cg, _ := os.ReadFile("/proc/1/cgroup"); strings.Contains(string(cg), "docker") || strings.Contains(string(cg), "kubepods") {
		signs = append(signs, "/proc/1/cgroup")
	}
	if len(signs) == 0 {
		return check{Name: "container", OK: true, Detail: "no signs of a container"}
	}
	return check{Name: "container", OK: true, Detail: "inside a container (" + strings.Join(signs, ", ") +
		"); if namespaces fail, the container's seccomp/AppArmor profile is the likely cause"}
}

func wslCheck() check {
	v, _ := os.ReadFile("/proc/version")
	switch s := string(v); {
	case strings.Contains(s, "WSL2"):
		return check{Name: "wsl", OK: true, Detail: "WSL2"}
	case strings.Contains(s, "Microsoft"):
		return check{Name: "wsl", Detail: "WSL1 has no namespaces", Fix: "wsl --set-version <distro> 2"}
	}
	return check{Name: "wsl", OK: true, Detail: "not WSL"}
}
