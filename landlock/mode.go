// Package landlock is zsandbox's second, independent fence on Linux: a
// Landlock domain that the command runs in, inside bubblewrap. It lets the
// command read and execute everything but write only under the writable
// roots (and a few device files), denies TCP connect and bind under
// --network deny, and keeps signals and unix sockets (abstract ones by
// scoping, pathname ones from ABI 9; not with --allow-unix-sockets) from
// reaching processes outside the sandbox.
//
// The rules are pure data (Rules, golden- and table-tested on every OS),
// planned in the parent for the ABI it probed (Config.ABI). They are
// applied by a tiny "stage 2", which enforces that plan exactly or refuses
// to run (PlannedError): bwrap runs the zsandbox binary itself as
//
//	zsandbox __stage2 RULESET... -- COMMAND [ARG...]
//
// (see Ruleset.Command: the ruleset as exact numbers), and Stage2
// restricts itself with it, closes every inherited descriptor above stderr
// and execve's the command. The stage 2 plans nothing. In
// builds with cgo, stage2_linux.c does exactly that in C before the Go
// runtime starts, which saves most of stage 2's cost.
//
// On hosts where bubblewrap cannot create namespaces, the Landlock-only
// backend (--backend landlock, see alone.Exec) makes Landlock and the
// seccomp filter the whole sandbox: AloneRules plans it, AloneGaps says
// what it cannot do.
//
// The kernel interface is used directly through golang.org/x/sys/unix:
// three system calls, with the ABI checked here, never by a library's
// silent best effort.
package landlock

import "fmt"

// Mode says whether Landlock is used.
type Mode string

// The modes of --landlock.
const (
	// ModeAuto enforces the rules the kernel's Landlock ABI can express, and
	// runs without Landlock when the kernel has none (explain says so).
	ModeAuto Mode = "auto"
	// ModeRequire refuses to run (exit 127) unless the kernel can enforce
	// every rule of the fence; see RequiredABI.
	ModeRequire Mode = "require"
	// ModeOff does not use Landlock.
	ModeOff Mode = "off"
)

// ParseMode reads a --landlock value; "" means auto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return ModeAuto, nil
	case ModeAuto, ModeRequire, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("--landlock %q: must be auto, require or off", s)
}

// orAuto treats the zero Mode as auto, like ParseMode("").
func (m Mode) orAuto() Mode {
	if m == "" {
		return ModeAuto
	}
	return m
}

// Config is what the fence needs to know about a policy.
type Config struct {
	Mode Mode `json:"landlock"`
	// Writable are the writable roots: absolute, clean, symlink-free.
	Writable []string `json:"writable"`
	// NetworkDeny is --network deny.
	NetworkDeny bool `json:"networkDeny"`
	// ProxyPort is the allowlist's proxy port: TCP connect is allowed to
	// it alone (0: no allowlist).
	ProxyPort uint16 `json:"proxyPort,omitempty"`
	// UnixSockets is --allow-unix-sockets: connections to unix sockets made
	// outside the sandbox are not fenced.
	UnixSockets bool `json:"unixSockets"`
	// ABI is the Landlock ABI the fence is planned for: the parent probes
	// the kernel (ABI) before bubblewrap starts, and the stage 2 enforces
	// Rules(c, c.ABI) exactly, or refuses to run when the kernel it sees
	// offers less (a seccomp filter can hide Landlock from it). 0: no
	// Landlock.
	ABI int `json:"abi"`
}
