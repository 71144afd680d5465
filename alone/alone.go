// Package alone is the Landlock-only backend (--backend landlock): it
// plans (Rules) and applies (Exec, in the confined Child) a Landlock
// domain and zsandbox's seccomp filter without namespaces, for hosts
// where bubblewrap cannot create them. The fence itself (the ABI table,
// rules, their wire format, enforcement) is package landlock's.
package alone

import (
	"errors"
	"fmt"

	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/policy"
)

// The Landlock-only backend (--backend landlock) runs the command without
// namespaces, for hosts where bubblewrap cannot create them (a container
// under Docker's default profile, Ubuntu 24.04's AppArmor restriction on
// user namespaces). zsandbox restricts itself and execve's the command in
// place: no_new_privs, every capability dropped, a Landlock domain and the
// same seccomp filter bubblewrap would install. Landlock only ever allows,
// so what bubblewrap does with mounts is spelled here as rules:
//
//   - writes: read-write rules on the writable roots and a few devices, and
//     no write right anywhere else;
//   - hidden paths: read rules on everything except them (ReadRules), so a
//     hidden path inside a writable root cannot be enforced (Check);
//   - devices: every entry of /dev except the harmless ones (openDevices)
//     is treated as hidden, so raw disks and /dev/kmsg do not open even for
//     root, who owns them;
//   - network: TCP connect and bind handled with no port allowed under
//     --network deny (the seccomp filter refuses socket() there anyway);
//   - IPC: signals and abstract unix sockets scoped to the domain, and
//     pathname unix sockets made outside it refused (ABI 9), unless
//     --allow-unix-sockets.
//
// What it cannot do is listed by Gaps.

// Arg is the argv[1] that makes zsandbox run as the confined child of
// the Landlock-only backend (see Child).
const Arg = "__alone"

// MinABI is the Landlock ABI the backend needs: signal and abstract
// unix socket scoping (Linux 6.12). There is no downgrade: without them
// nothing would stop the command signalling the caller's processes.
const MinABI = 6

// Config is what the Landlock-only backend needs to know about a
// policy. Every path is absolute, clean and symlink-free, as policy.Resolve
// makes them.
type Config struct {
	// Writable are the writable roots.
	Writable []string `json:"writable"`
	// Hidden are the hidden paths that exist when the command starts.
	Hidden []string `json:"hide"`
	// HiddenMissing are the hidden paths that do not exist at start. Their
	// existing ancestors are cut like those of Hidden, so one that appears
	// later, outside the writable roots, is still unreadable. Left empty,
	// such a path is readable if it appears in a directory that no other
	// hidden path cuts.
	HiddenMissing []string `json:"hideMissing,omitempty"`
	// NetworkDeny is --network deny.
	NetworkDeny bool `json:"networkDeny"`
	// UnixSockets is --allow-unix-sockets.
	UnixSockets bool `json:"unixSockets"`
}

// openDevices are the entries of /dev the command may open: the device
// files tools read and write, pty masters and slaves, POSIX shared memory,
// and the links into /proc/self/fd (links get no rule: the kernel checks
// what they point to). Everything else in /dev is unreadable and
// unwritable.
var openDevices = map[string]bool{
	"null": true, "zero": true, "full": true, "random": true, "urandom": true,
	"tty": true, "ptmx": true, "pts": true, "shm": true,
	"fd": true, "stdin": true, "stdout": true, "stderr": true,
}

// Error is a policy the Landlock-only backend cannot enforce: a hidden
// path within a writable root (the root's rule would grant it), a writable
// root within a hidden path, or a writable root holding /dev or inside it
// (but for /dev/shm). Nothing runs.
type Error struct {
	Path    string // the hidden path, or /dev
	Root    string // the writable root
	Missing bool   // the hidden path does not exist yet
}

func (e *Error) Error() string {
	switch {
	case e.Path == "/dev":
		return fmt.Sprintf("--backend landlock: writable root %q would open device files in /dev, which this backend keeps closed (only /dev/shm may be writable)", e.Root)
	case policy.Within(e.Root, e.Path) && e.Root != e.Path:
		return fmt.Sprintf("--backend landlock: writable root %q lies inside hidden path %q", e.Root, e.Path)
	case e.Missing:
		return fmt.Sprintf("--backend landlock: hidden path %q does not exist and lies inside writable root %q; without mounts nothing stops the command creating it, and what it creates there (a settings file, ~/.ssh/authorized_keys) would be obeyed outside the sandbox and by the next run",
			e.Path, e.Root)
	}
	return fmt.Sprintf("--backend landlock: hidden path %q lies inside writable root %q; Landlock can only add access, so it cannot keep it hidden",
		e.Path, e.Root)
}

// Hint names the ways out.
func (e *Error) Hint() string {
	if e.Path == "/dev" {
		return "name a --writable root outside /dev"
	}
	return fmt.Sprintf("run from a directory that does not contain %s (--cwd), drop the --writable root that does, or use --backend bwrap where user namespaces work", e.Path)
}

// ABIError means the kernel's Landlock cannot carry the backend.
type ABIError struct {
	ABI int // the kernel's Landlock ABI; 0: none
}

func (e *ABIError) Error() string {
	if e.ABI == 0 {
		return "--backend landlock: this kernel has no Landlock"
	}
	return fmt.Sprintf("--backend landlock: the kernel offers Landlock ABI %d, the backend needs ABI %d (signal and abstract unix socket scoping)",
		e.ABI, MinABI)
}

// Hint says how to get Landlock, or how to do without it.
func (e *ABIError) Hint() string {
	return fmt.Sprintf("Landlock ABI %d needs Linux %s or newer with landlock in the lsm= boot parameter; or use --backend bwrap where user namespaces work",
		MinABI, landlock.KernelFor(MinABI))
}

// Check returns an *Error when c cannot be enforced without
// namespaces, and nil otherwise. A hidden path inside a writable root is
// refused whether it exists (the root's rule would grant it) or not (the
// command could create it, and a created settings file would widen every
// later run).
func Check(c Config) error {
	for _, r := range c.Writable {
		for _, h := range c.Hidden {
			if policy.Within(h, r) || policy.Within(r, h) {
				return &Error{Path: h, Root: r}
			}
		}
		for _, h := range c.HiddenMissing {
			if policy.Within(h, r) {
				return &Error{Path: h, Root: r, Missing: true}
			}
		}
		if policy.Within("/dev", r) || (policy.Within(r, "/dev") && !policy.Within(r, "/dev/shm")) {
			return &Error{Path: "/dev", Root: r}
		}
	}
	return nil
}

// Rules plans the Landlock domain of the Landlock-only backend for c on
// a kernel with ABI abi. exists and list look at the file system as for
// ReadRules (list is asked for /dev and for the directories above hidden
// paths). It returns an *Error or *ABIError when the backend must
// refuse.
func Rules(c Config, abi int, exists func(string) (isDir, ok bool), list func(string) []string) (landlock.Ruleset, error) {
	if err := Check(c); err != nil {
		return landlock.Ruleset{}, err
	}
	if abi < MinABI {
		return landlock.Ruleset{}, &ABIError{ABI: max(abi, 0)}
	}
	rs := landlock.Rules(landlock.Config{Mode: landlock.ModeRequire, Writable: c.Writable, NetworkDeny: c.NetworkDeny, UnixSockets: c.UnixSockets}, abi)
	rs.Mode = ""
	reads, err := ReadRules(hiddenPaths(c, list), exists, list)
	if err != nil {
		return landlock.Ruleset{}, fmt.Errorf("--backend landlock: %w", err)
	}
	var paths []landlock.PathRule
	for _, p := range reads {
		// Listed a moment ago: a path gone by the time the rule is added
		// needs no rule, and one turned into a symlink must not carry the
		// rule to its target.
		p.IfExists, p.NoFollow = true, true
		paths = mergeRule(paths, p, rs.HandledFS)
	}
	for _, w := range c.Writable {
		paths = mergeRule(paths, landlock.PathRule{Path: w, Access: landlock.ReadAccess | landlock.WriteAccess, Exact: true}, rs.HandledFS)
	}
	for _, d := range append(landlock.Devices, "/dev/random", "/dev/urandom") {
		paths = mergeRule(paths, landlock.PathRule{Path: d, Access: landlock.DeviceAccess, IfExists: true}, rs.HandledFS)
	}
	for _, d := range landlock.DeviceDirs {
		paths = mergeRule(paths, landlock.PathRule{Path: d, Access: landlock.ReadAccess | landlock.WriteAccess, IfExists: true}, rs.HandledFS)
	}
	rs.Paths = paths
	return rs, nil
}

// hiddenPaths is what ReadRules must leave unreadable: the hidden paths and
// every entry of /dev but the harmless ones.
func hiddenPaths(c Config, list func(string) []string) []string {
	hidden := append(append([]string{}, c.Hidden...), c.HiddenMissing...)
	for _, name := range list("/dev") {
		if !openDevices[name] {
			hidden = append(hidden, "/dev/"+name)
		}
	}
	return hidden
}

// mergeRule adds p to rules, or widens the rule already on p.Path.
func mergeRule(rules []landlock.PathRule, p landlock.PathRule, handled landlock.AccessFS) []landlock.PathRule {
	p.Access &= handled
	for i := range rules {
		if rules[i].Path == p.Path {
			rules[i].Access |= p.Access
			rules[i].IfExists = rules[i].IfExists && p.IfExists
			rules[i].NoFollow = rules[i].NoFollow && p.NoFollow
			rules[i].Exact = rules[i].Exact || p.Exact
			return rules
		}
	}
	return append(rules, p)
}

// errNoCommand is Exec without a command.
var errNoCommand = errors.New("--backend landlock: no command")

// Gaps lists, one protection per line, what the Landlock-only backend
// does not give that the bubblewrap backend does. The CLI shows them in
// explain; Warning sums them up.
func Gaps() []string {
	return []string{
		"no PID namespace: the command sees every host process in /proc (command lines, status); " +
			"Landlock refuses its signals to processes outside the sandbox (scoping, ABI 6) and its ptrace access to them " +
			"(attach, /proc/PID/mem, environ, cwd, root and fd); zsandbox stays the parent and kills what the command leaves behind when it exits",
		"no mount namespace: protected paths (git's hooks and config, agent and editor config at the project top, " +
			"start-up files and PATH directories in a writable home, every --protect; explain lists them) are writable like the rest of their root",
		"file metadata and locks are not fenced: Landlock does not cover chmod, chgrp, extended attributes (ACLs included), " +
			"timestamps or flock, so the command can change or take them on any file it owns outside the writable roots",
		"not for root: uid 0 keeps owner rights that Landlock does not fence (reading root-owned files such as " +
			"/etc/shadow, chmod of any root-owned file), so zsandbox refuses to run this backend as root",
		"hidden paths are fenced by granting read on everything else: a hidden path inside a writable root, existing or not " +
			"(the command could create it), makes zsandbox refuse to run; " +
			"stat still shows whether a hidden path exists, its size and times; the directories above a hidden path cannot be listed, " +
			"and entries created in them after the start are unreadable; a hard link to a hidden file made before the start is readable",
		"host network namespace: under --network deny the seccomp filter refuses socket() for every family (IP, raw, " +
			"netlink, unix and the rest); Landlock is a second fence only for TCP connect and bind (ABI 4), pathname unix " +
			"sockets (ABI 9), UDP (ABI 10) and abstract unix sockets (scoping, ABI 6), so below those ABIs, and for every " +
			"other family, the filter stands alone; connected sockets inherited on stdin, stdout or stderr stay usable (a datagram or unconnected one is refused); under " +
			"--network allow the command shares the host's network, loopback services included, while unix sockets stay " +
			"closed as with bubblewrap (Landlock from ABI 9, else the filter refuses socket(AF_UNIX); --allow-unix-sockets opens them)",
		"no IPC namespace: the host's System V IPC objects (shared memory, semaphores, message queues) are reachable " +
			"under their permissions (POSIX message queues are not: Landlock grants no access to their file system)",
		"no new session: the command keeps the caller's controlling terminal (TIOCSTI and TIOCLINUX are refused by the seccomp filter)",
	}
}

// Warning is the one line the CLI prints (after "zsandbox: warning: ")
// each time the Landlock-only backend runs.
func Warning() string {
	return "--backend landlock runs without namespaces: host processes stay visible, protected paths are writable " +
		"inside writable roots, and file metadata (chmod, timestamps) outside them is not fenced; " +
		"writes, hidden paths, network, signals and devices are fenced by Landlock and seccomp"
}
