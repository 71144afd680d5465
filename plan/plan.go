// Package plan is the one value between the policy and the OS. Render
// turns a resolved policy and the run's options into a Plan: the backend,
// bubblewrap's argv and the files it is handed, the Landlock ruleset the
// stage 2 applies, the seccomp program's source and socket rules, the
// Seatbelt profile, the facts the denial hint needs, what the backend
// cannot enforce, and the warnings. Render is pure (host facts come in as
// Options), so every decision is tested on every OS, and explain prints
// the very Plan that exec applies.
package plan

import (
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/zsandbox/zsandbox/alone"
	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/denymsg"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seatbelt"
	"github.com/zsandbox/zsandbox/seccomp"
)

// The backends of --backend, auto resolved.
const (
	Bwrap    = "bwrap"
	Landlock = "landlock"
	Seatbelt = "seatbelt"
)

// Options are the run's choices beyond the policy, and the host facts the
// plan depends on.
type Options struct {
	Backend     string // Bwrap, Landlock or Seatbelt
	Landlock    landlock.Mode
	LandlockABI int // the kernel's, probed once: what the fence is planned for
	// SeccompProfile is the user's --seccomp-profile file ("" for the
	// built-in one) and UserSeccomp its parsed contents.
	SeccompProfile string
	UserSeccomp    *specs.LinuxSeccomp
	// Exe is zsandbox's own binary, symlink-free ("" when unknown).
	Exe string
	// FS looks at the file system for the Landlock-only backend's read
	// rules (see landlock.ReadRules).
	FS FS
	// Explain also renders the forms of other backends that explain can
	// print (the Seatbelt profile on Linux); exec renders only its own.
	Explain bool
	// Warn prints the warning lines (--no-warning clears it).
	Warn bool
}

// FS is how Render looks at the file system.
type FS struct {
	Kind func(path string) (isDir, ok bool) // what is at path, not following a final symlink
	List func(dir string) []string          // the names in dir; none when it cannot be listed
}

// Plan is everything exec applies and explain prints.
type Plan struct {
	Backend string
	Policy  *policy.Policy
	// Argv is the user's command.
	Argv []string
	// Writable are the writable roots' paths and NetworkDeny is --network
	// deny: computed once, read by every part below.
	Writable    []string
	NetworkDeny bool
	// Landlock is the ruleset that is applied: the stage 2's inside
	// bubblewrap (planned with Stage2), or the whole fence of --backend
	// landlock (planned with Alone).
	Landlock landlock.Ruleset
	Stage2   landlock.Config
	Alone    alone.Config
	Seccomp  Seccomp
	Unix     Unix
	// Allowlist is the network of --allow-domain; nil in the other modes.
	Allowlist *Allowlist
	// Bwrap is bubblewrap's argv: the options, and the command (the stage
	// 2 in front of the user's when Landlock is enforced).
	Bwrap bwrap.Plan
	// Seatbelt is the macOS profile, rendered for the seatbelt backend and
	// for explain; SeatbeltErr says why it could not be.
	Seatbelt    seatbelt.Profile
	SeatbeltErr error
	// Hint is what the denial hint knows about the policy.
	Hint denymsg.Facts
	// Gaps are what the backend cannot enforce.
	Gaps []string
	// Warnings are printed (after "zsandbox: warning: ") on every run,
	// and AloneWarning by --backend landlock once its sandbox is built.
	Warnings     []string
	AloneWarning string
	// Refused says why nothing may run (exit 127): a fence that cannot be
	// applied, or a policy the backend cannot enforce. nil otherwise.
	Refused error
}

// Seccomp is the filter's source: the built-in program or the user's
// profile, with the socket rules added.
type Seccomp struct {
	Profile string              // "built-in" or the user's file
	User    *specs.LinuxSeccomp // the user's profile; nil for the built-in one
	Sockets seccomp.Sockets
}

// Unix says which unix sockets the command can reach, and what keeps the
// others out.
type Unix struct {
	Allowed bool `json:"allowed"` // --allow-unix-sockets
	// Fence is what refuses the host's sockets: "landlock" (the command's
	// own still work), "seccomp" (socket(AF_UNIX) refused), "sandbox"
	// (Seatbelt), or "" when allowed.
	Fence string `json:"fence"`
}

// Fenced reports whether Landlock is applied.
func (pl Plan) Fenced() bool { return pl.Landlock.Status == landlock.StatusEnforced }
