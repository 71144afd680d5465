package apple

import (
	"fmt"
	"strconv"

	"github.com/zsandbox/zsandbox/contexts"
)

// The argv builders are pure: every command the context runs is one of
// these arrays (never a shell string), golden-tested on every OS.

// runArgs starts the handle's container: detached, named, labelled, with
// the working directory, environment, user, limits and bind mounts asked
// for, the same hardening the docker context applies where the CLI has
// it (every capability dropped, an init process), no network unless
// allowed, kept alive by `sleep infinity`.
func runArgs(name, id string, o contexts.Options, cwd string, env []string, user string) []string {
	a := []string{"run", "--detach", "--name", name, "--label", label + "=1", "--label", labelID + "=" + id,
		"--workdir", cwd, "--cap-drop", "ALL", "--init"}
	if o.Network != contexts.NetworkAllow {
		a = append(a, "--network", "none")
	}
	if user != "" {
		a = append(a, "--user", user)
	}
	if o.Limits.CPUs > 0 {
		a = append(a, "--cpus", strconv.FormatFloat(o.Limits.CPUs, 'f', -1, 64))
	}
	if o.Limits.MemoryMiB > 0 {
		a = append(a, "--memory", fmt.Sprintf("%dM", o.Limits.MemoryMiB))
	}
	for _, p := range o.Ports {
		ip, proto := p.Resolved()
		a = append(a, "--publish", fmt.Sprintf("%s:%d:%d/%s", ip, p.HostPort, p.ContainerPort, proto))
	}
	for _, m := range o.Mounts {
		spec := "type=bind,source=" + m.Source + ",target=" + m.Target
		if m.ReadOnly {
			spec += ",readonly"
		}
		a = append(a, "--mount", spec)
	}
	for _, e := range env {
		a = append(a, "--env", e)
	}
	return append(a, image(o), "sleep", "infinity")
}

// execArgs runs argv in the container; -i only when stdin is fed, -t for
// a terminal.
func execArgs(name, cwd, user string, env []string, interactive, tty bool, argv []string) []string {
	a := []string{"exec"}
	if interactive {
		a = append(a, "--interactive")
	}
	if tty {
		a = append(a, "--tty")
	}
	if cwd != "" {
		a = append(a, "--workdir", cwd)
	}
	if user != "" {
		a = append(a, "--user", user)
	}
	for _, e := range env {
		a = append(a, "--env", e)
	}
	a = append(a, name)
	return append(a, argv...)
}

// rmArgs removes the container, running or not.
func rmArgs(name string) []string { return []string{"rm", "--force", name} }

// listArgs lists every container as JSON (for Attach).
func listArgs() []string { return []string{"ls", "--all", "--format", "json"} }

// The local context's detection (the desktop app's rule).
func versionArgs() []string { return []string{"--version"} }
func statusArgs() []string  { return []string{"system", "status"} }
