package main

import (
	"os"
	"os/exec"
	"strings"

	"github.com/zsandbox/zsandbox/bwrap"
)

// hostChecks probes this Linux host for what zsandbox exec needs.
func hostChecks() []check {
	bin, err := bwrap.Find(os.Getenv("PATH"), nil)
	if err != nil {
		return []check{{Name: "bwrap", Required: true, Detail: "not found",
			Fix: "apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora)"}}
	}
	return []check{bwrapCheck(bin), usernsCheck(bin)}
}

func bwrapCheck(bin string) check {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return check{Name: "bwrap", Required: true, Detail: bin + " does not run: " + err.Error(), Fix: "reinstall bubblewrap"}
	}
	return check{Name: "bwrap", OK: true, Required: true, Detail: bin + " (" + strings.TrimSpace(string(out)) + ")"}
}

// usernsCheck really builds a sandbox like exec's, running /bin/true.
func usernsCheck(bin string) check {
	out, err := exec.Command(bin, "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "/bin/true").CombinedOutput()
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
