package landlock

import (
	"fmt"
	"strings"
)

// The rights the rules grant, before they are cut down to what a given ABI
// handles.
const (
	// ReadAccess is granted everywhere: the sandbox may read the machine
	// (bubblewrap hides the credentials).
	ReadAccess = fsExecute | fsReadFile | fsReadDir
	// WriteAccess is every right that changes the file system, including
	// refer (so mv between directories inside the roots works), truncate and
	// ioctl on devices (terminals). resolve_unix is left out: it is a route
	// out, not a write.
	WriteAccess = fsWriteFile | fsRemoveDir | fsRemoveFile | fsMakeChar | fsMakeDir |
		fsMakeReg | fsMakeSock | fsMakeFifo | fsMakeBlock | fsMakeSym | fsRefer |
		fsTruncate | fsIoctlDev
	// DeviceAccess lets tools open the shared device files for writing
	// (">/dev/null" truncates) and use terminal ioctls on a tty opened later.
	DeviceAccess = fsWriteFile | fsTruncate | fsIoctlDev
)

// Devices are the device files tools write to, and /dev/pts, where pty
// slaves are opened (never created). DeviceDirs are where tools create
// files under /dev: POSIX shared memory. Only the paths that exist get a
// rule.
var (
	Devices    = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"}
	DeviceDirs = []string{"/dev/shm"}
)

// Status says what happens to the fence when the command runs.
type Status string

// The statuses of a Ruleset.
const (
	StatusEnforced    Status = "enforced"    // the rules below apply
	StatusOff         Status = "off"         // --landlock off
	StatusUnavailable Status = "unavailable" // auto without Landlock: the command runs without it
	StatusRefused     Status = "refused"     // require unmet: nothing runs (exit 127)
)

// Ruleset describes what Enforce will apply for a Config at a kernel ABI.
type Ruleset struct {
	Mode Mode `json:"mode"`
	// ABI is the kernel's Landlock ABI version; 0 means no Landlock.
	ABI int `json:"abi"`
	// RequiredABI is what --landlock require demands for this policy.
	RequiredABI int    `json:"requiredABI"`
	Status      Status `json:"status"`
	// Reason says why a refused ruleset is refused when it is not the ABI
	// (see Refuse).
	Reason     string    `json:"reason,omitempty"`
	HandledFS  AccessFS  `json:"handledFS"`
	HandledNet AccessNet `json:"handledNet"`
	Scoped     Scope     `json:"scoped"`
	// Paths are the allow rules; every handled right not allowed here is
	// denied.
	Paths []PathRule `json:"paths,omitempty"`
	// Ports allow network rights on one TCP port each.
	Ports []PortRule `json:"ports,omitempty"`
	// Gaps are the protections of the fence this ABI cannot give.
	Gaps []Protection `json:"gaps,omitempty"`
}

// PortRule allows Access (TCP connect) to Port.
type PortRule struct {
	Port   uint16    `json:"port"`
	Access AccessNet `json:"access"`
}

// PathRule allows Access beneath Path.
type PathRule struct {
	Path   string   `json:"path"`
	Access AccessFS `json:"access"`
	// IfExists rules are skipped when the path does not exist (devices).
	IfExists bool `json:"ifExists,omitempty"`
	// NoFollow rules are skipped when the path is a symlink; other rules
	// land on what a symlink points to.
	NoFollow bool `json:"noFollow,omitempty"`
	// Exact rules are opened with no symlink anywhere in the path, and one
	// there is an error: the policy resolved the path, so a symlink now
	// means another process swapped one in to move the rule elsewhere.
	Exact bool `json:"exact,omitempty"`
}

// Refuse returns rs refused for reason: a ruleset the kernel could enforce,
// but the sandbox would not let the stage 2 apply.
func (rs Ruleset) Refuse(reason string) Ruleset {
	return Ruleset{Mode: rs.Mode, ABI: rs.ABI, RequiredABI: rs.RequiredABI, Status: StatusRefused, Reason: reason, Gaps: rs.Gaps}
}

// Protection is one protection of the fence and the ABI that enforces it.
type Protection struct {
	What string `json:"what"`
	ABI  int    `json:"abi"`
	// Required protections that the kernel cannot give make --landlock
	// require refuse to run.
	Required bool `json:"required"`
}

// fence lists every protection Landlock adds for c, weakest ABI first. The
// required ones are the design's promise for the Landlock fence (writes,
// TCP under --network deny, signal and abstract-socket scoping); the others
// are enforced when the kernel has them, while bubblewrap's network
// namespace and the seccomp filter already cover the same ground.
func fence(c Config) []Protection {
	g := []Protection{
		{What: "writes outside the writable roots", ABI: 1, Required: true},
		{What: "truncation of files outside the writable roots", ABI: 3, Required: true},
	}
	if c.NetworkDeny {
		g = append(g, Protection{What: "TCP connect and bind", ABI: 4, Required: true})
	}
	if c.ProxyPort != 0 && !c.NetworkDeny {
		// Not required: the allowlist's network namespace has no route
		// out but the proxy's listener already.
		g = append(g, Protection{What: fmt.Sprintf("TCP connect to anything but the proxy's port %d", c.ProxyPort), ABI: 4})
	}
	g = append(g, Protection{What: "signals to processes outside the sandbox", ABI: 6, Required: true})
	if scopesAbstract(c) {
		g = append(g, Protection{What: "connections to abstract unix sockets outside the sandbox", ABI: 6, Required: true})
	}
	if !c.UnixSockets {
		// Without ABI 9 the seccomp filter refuses socket(AF_UNIX) instead
		// (see FencesUnixSockets), so the pathname one is not required.
		g = append(g, Protection{What: "connections to pathname unix sockets made outside the sandbox", ABI: 9})
	}
	if c.NetworkDeny {
		g = append(g, Protection{What: "UDP bind and send", ABI: 10})
	}
	return g
}

// scopesAbstract reports whether c keeps the host's abstract unix sockets
// out: without --allow-unix-sockets, and under --network deny with it, where
// they belong to the host's network namespace, which bubblewrap leaves
// behind but the Landlock-only backend shares (scoping is its only fence).
func scopesAbstract(c Config) bool {
	return !c.UnixSockets || c.NetworkDeny
}

// RequiredABI is the Landlock ABI that --landlock require demands for c: the
// newest ABI among the fence's required protections. It is 6 for every
// policy today, because signal scoping applies to every policy.
func RequiredABI(c Config) int {
	need := 0
	for _, g := range fence(c) {
		if g.Required && g.ABI > need {
			need = g.ABI
		}
	}
	return need
}

// Rules describes what Enforce does for c on a kernel with Landlock ABI abi
// (0: none). The C stage 2 (stage2_linux.c) mirrors Rules, fence and
// RequireError; TestCStage2Rules compares them.
func Rules(c Config, abi int) Ruleset {
	rs := Ruleset{Mode: c.Mode.orAuto(), ABI: max(abi, 0), RequiredABI: RequiredABI(c)}
	switch {
	case rs.Mode == ModeOff:
		rs.Status = StatusOff
		return rs
	case rs.Mode == ModeRequire && rs.ABI < rs.RequiredABI:
		rs.Status = StatusRefused
	case rs.ABI == 0:
		rs.Status = StatusUnavailable
	default:
		rs.Status = StatusEnforced
	}
	for _, g := range fence(c) {
		if g.ABI > rs.ABI {
			rs.Gaps = append(rs.Gaps, g)
		}
	}
	if rs.Status != StatusEnforced {
		return rs
	}
	rs.HandledFS = fsAt(rs.ABI)
	switch {
	case c.NetworkDeny:
		rs.HandledNet = netAt(rs.ABI) // no port is allowed
	case c.ProxyPort != 0:
		// The allowlist: TCP connect only to the proxy (bind stays free).
		if rs.HandledNet = netAt(rs.ABI) & netConnectTCP; rs.HandledNet != 0 {
			rs.Ports = []PortRule{{Port: c.ProxyPort, Access: netConnectTCP}}
		}
	}
	rs.Scoped = scopeAt(rs.ABI)
	if c.UnixSockets {
		rs.HandledFS &^= fsResolveUnix
	}
	if !scopesAbstract(c) {
		rs.Scoped &^= scopeAbstractUnixSocket
	}
	rs.Paths = allowRules(c.Writable, rs.HandledFS)
	return rs
}

// allowRules grants read everywhere and write under the roots and devices.
// A path named twice gets one rule with the union of the rights. Roots are
// Exact: the policy resolved them, so a symlink in one now is a swap.
func allowRules(writable []string, handled AccessFS) []PathRule {
	var out []PathRule
	add := func(p string, a AccessFS, ifExists, exact bool) {
		for i := range out {
			if out[i].Path == p {
				out[i].Access |= a & handled
				out[i].IfExists = out[i].IfExists && ifExists
				out[i].Exact = out[i].Exact || exact
				return
			}
		}
		out = append(out, PathRule{Path: p, Access: a & handled, IfExists: ifExists, Exact: exact})
	}
	add("/", ReadAccess, false, false)
	for _, w := range writable {
		add(w, ReadAccess|WriteAccess, false, true)
	}
	for _, d := range Devices {
		add(d, DeviceAccess, true, false)
	}
	for _, d := range DeviceDirs {
		add(d, ReadAccess|WriteAccess, true, false)
	}
	return out
}

// FencesUnixSockets reports whether the ruleset alone keeps the command from
// connecting to unix sockets made outside the sandbox while its own keep
// working: pathname sockets by LANDLOCK_ACCESS_FS_RESOLVE_UNIX (ABI 9; a
// socket made in the same domain stays reachable) and abstract ones by
// scoping (ABI 6). Where it does not, the kernel cannot tell the
// command's sockets from the host's, and the seccomp filter refuses
// socket(AF_UNIX) instead.
func (rs Ruleset) FencesUnixSockets() bool {
	return rs.Status == StatusEnforced && rs.HandledFS&fsResolveUnix != 0 && rs.Scoped&scopeAbstractUnixSocket != 0
}

// Syscalls are the system calls the stage 2 makes to apply the fence: a
// seccomp profile must allow them.
var Syscalls = []string{"landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self"}

// SeccompHint is how to let the stage 2 apply the fence, or do without it.
const SeccompHint = "let the seccomp profile allow landlock_create_ruleset, landlock_add_rule and landlock_restrict_self, or use --landlock off"

// PlannedError means the stage 2 sees less Landlock than the parent planned
// for: a seccomp filter (a --seccomp-profile) refuses the Landlock calls, or
// hides the ABI. Running without the planned fence would be a silent
// downgrade, so nothing runs.
type PlannedError struct {
	Planned int // the ABI the parent planned for
	ABI     int // the ABI the stage 2 sees; 0: none
}

func (e *PlannedError) Error() string {
	return fmt.Sprintf("landlock: the sandbox sees Landlock ABI %d, but zsandbox planned the fence for ABI %d (is a seccomp filter refusing landlock_create_ruleset?)",
		e.ABI, e.Planned)
}

// Hint says how to get the planned fence, or do without it.
func (e *PlannedError) Hint() string { return SeccompHint }

// Check returns a *RequireError when c requires Landlock and a kernel with
// ABI abi cannot enforce the whole fence, and nil otherwise.
func Check(c Config, abi int) error {
	rs := Rules(c, abi)
	if rs.Status != StatusRefused {
		return nil
	}
	e := &RequireError{ABI: rs.ABI, Need: rs.RequiredABI}
	for _, g := range rs.Gaps {
		if g.Required {
			e.Missing = append(e.Missing, g.What)
		}
	}
	return e
}

// RequireError means --landlock require cannot be met on this kernel.
type RequireError struct {
	ABI     int      // the kernel's Landlock ABI; 0: none
	Need    int      // the ABI the policy needs
	Missing []string // the protections the kernel cannot enforce
}

func (e *RequireError) Error() string {
	if e.ABI == 0 {
		return "--landlock require: this kernel has no Landlock"
	}
	return fmt.Sprintf("--landlock require: the kernel offers Landlock ABI %d, the policy needs ABI %d (missing: %s)",
		e.ABI, e.Need, strings.Join(e.Missing, "; "))
}

// Hint says how to get the fence, or how to do without it.
func (e *RequireError) Hint() string {
	if e.ABI == 0 {
		return "Landlock needs Linux " + KernelFor(1) + " or newer with landlock in the lsm= boot parameter (see /sys/kernel/security/lsm); or use --landlock auto to run with bubblewrap alone"
	}
	return fmt.Sprintf("Landlock ABI %d needs Linux %s or newer; or use --landlock auto to enforce what ABI %d can",
		e.Need, KernelFor(e.Need), e.ABI)
}

// Lines describes the ruleset for explain, one fact per line.
func (rs Ruleset) Lines() []string {
	var out []string
	switch rs.Status {
	case StatusOff:
		return []string{"landlock: off (--landlock off)"}
	case StatusUnavailable:
		out = append(out, "landlock: unavailable: this kernel has no Landlock; the command runs without it")
	case StatusRefused:
		out = append(out, "landlock: refused: "+rs.refusal()+"; nothing runs (exit 127)")
	default:
		out = append(out, fmt.Sprintf("landlock: enforced at ABI %d (%s)", rs.ABI, rs.flag()))
		net := "none"
		if rs.HandledNet != 0 {
			net = rs.HandledNet.String() + " (no port allowed)"
		}
		for _, p := range rs.Ports {
			net = fmt.Sprintf("%s (only port %d: %s)", rs.HandledNet, p.Port, p.Access)
		}
		out = append(out, "landlock: handled fs: "+orNone(rs.HandledFS.String()),
			"landlock: handled net: "+net,
			"landlock: scoped: "+orNone(rs.Scoped.String()))
		for _, p := range rs.Paths {
			cond := ""
			if p.IfExists {
				cond = " (if present)"
			}
			out = append(out, fmt.Sprintf("landlock: allow %s%s: %s", p.Path, cond, describe(p.Access, rs.HandledFS)))
		}
	}
	for _, g := range rs.Gaps {
		out = append(out, fmt.Sprintf("landlock: not enforced: %s (needs ABI %d)", g.What, g.ABI))
	}
	return out
}

// refusal says why a refused ruleset is refused.
func (rs Ruleset) refusal() string {
	if rs.Reason != "" {
		return rs.Reason
	}
	return fmt.Sprintf("%s needs ABI %d, the kernel offers %d", rs.flag(), rs.RequiredABI, rs.ABI)
}

// flag names the setting that chose the fence: the Mode, or none for the
// Landlock-only backend (AloneRules).
func (rs Ruleset) flag() string {
	if rs.Mode == "" {
		return "--backend landlock"
	}
	return "--landlock " + string(rs.Mode)
}

// String is Lines joined by newlines.
func (rs Ruleset) String() string { return strings.Join(rs.Lines(), "\n") }

// describe names the two common grants in words and any other by its rights.
func describe(a, handled AccessFS) string {
	switch a {
	case ReadAccess & handled:
		return "read, execute"
	case (ReadAccess | WriteAccess) & handled:
		return "read, execute, every write right"
	}
	return a.String()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
