// Package policy computes, once and without side effects, what a sandboxed
// command may do: where it may write, what it may not see, whether it has a
// network and which environment it gets. Every backend (bwrap, Landlock,
// Seatbelt) renders the same Policy, so one table of rules holds them all to
// the same promise.
//
// Facts about the host (cwd, home, TMPDIR, environment) come in as a Host
// value; the only outside state Resolve consults is the file system, to make
// paths absolute and symlink-free and to read git's layout files.
package policy

// Network says whether the command may reach any network.
type Network string

const (
	// NetworkDeny cuts every route out: IP of any kind, loopback included,
	// and (with the seccomp filter) unix sockets.
	NetworkDeny Network = "deny"
	// NetworkAllow shares the host's network.
	NetworkAllow Network = "allow"
)

// Source says where a writable root, a protected path, or a hidden path
// that is not simply a default under $HOME, came from, in the words
// explain prints.
type Source string

// The sources of writable roots, then of protected paths.
const (
	SourceCwd      Source = "cwd"
	SourceTmpDir   Source = "TMPDIR"
	SourceDefault  Source = "default"
	SourceGitDir   Source = "git dir"
	SourceWorktree Source = "worktree common dir"
	SourceFlag     Source = "--writable"
	SourceEnv      Source = "ZSANDBOX_WRITABLE"
	SourceSettings Source = "settings"

	// The sources of protected paths (settings as above).
	SourceGit          Source = "git"
	SourceSubmodule    Source = "git submodule"
	SourceHooksPath    Source = "core.hooksPath"
	SourceGitInclude   Source = "git include"
	SourceHomeStartup  Source = "home start-up"
	SourceProject      Source = "project config"
	SourcePathDir      Source = "PATH"
	SourceHiddenAbsent Source = "hide (missing)"
	SourceProtectFlag  Source = "--protect"
	SourceProtectEnv   Source = "ZSANDBOX_PROTECT"
	SourceSelf         Source = "zsandbox binary"
)

// because says where a hidden path came from, for messages: "" when it
// needs no explaining.
func (s Source) because() string {
	if s == "" {
		return ""
	}
	return " (from " + string(s) + ")"
}

// Root is one writable root: an absolute, clean, symlink-free path.
type Root struct {
	Path   string `json:"path"`
	Source Source `json:"source"`
}

// Omitted is a writable root that was asked for (or is a default) but left out.
type Omitted struct {
	Path   string `json:"path"`
	Source Source `json:"source"`
	Reason string `json:"reason"`
}

// Hidden is a path the command can neither read nor write.
type Hidden struct {
	// Path is absolute and clean; symlinks are resolved when it exists.
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	IsDir  bool   `json:"isDir"`
	// Source is set when the path is not simply a default under $HOME or
	// a --hide entry: "account home", or the variable that moved a store
	// ("$GNUPGHOME").
	Source Source `json:"source,omitempty"`
}

// Policy is the resolved, platform-neutral description of one sandbox.
type Policy struct {
	Cwd      string `json:"cwd"`
	Home     string `json:"home"`
	Writable []Root `json:"writable"`
	// FileRoots are the writable roots that are files (--writable
	// .git/config): one inside another root needs no bind of its own.
	FileRoots map[string]bool `json:"-"`
	Omitted   []Omitted       `json:"omitted,omitempty"`
	Hidden    []Hidden        `json:"hide"`
	// Protected paths stay read-only inside writable roots.
	Protected []Protected `json:"protected"`
	Network   Network     `json:"network"`
	// Allowlist is set when Network is NetworkAllowlist.
	Allowlist *Allowlist `json:"allowlist,omitempty"`
	// UnixSockets (--allow-unix-sockets) lets the command connect to unix
	// sockets made outside the sandbox: the host's daemons (docker.sock,
	// D-Bus, tmux, X11, ssh-agent). Off, in every network mode, only the
	// command's own sockets are reachable, where the kernel can tell them
	// apart, and no unix socket at all where it cannot.
	UnixSockets bool `json:"unixSockets"`
	// Env is the command's environment, KEY=VALUE.
	Env []string `json:"-"`
	// DroppedEnv names (never values) the variables kept from the command.
	DroppedEnv []string `json:"droppedEnv"`
	// trust is what the policy was judged with, for CheckInput.
	trust *trust
}

// WritablePaths returns the writable roots' paths, in policy order.
func (p *Policy) WritablePaths() []string {
	out := make([]string, len(p.Writable))
	for i, r := range p.Writable {
		out[i] = r.Path
	}
	return out
}
