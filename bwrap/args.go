// Package bwrap renders a policy.Policy into the argument list of
// bubblewrap (Args, pure and golden-tested) and runs it on Linux (Exec,
// Probe). bwrap applies its mount options in order, and a later mount covers
// an earlier one, so the order of the argv is the security of the sandbox:
// it is built here, in one place, from an ordered list of steps.
package bwrap

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/zsandbox/zsandbox/policy"
)

// The file descriptors the runner hands to bwrap, in ExtraFiles order.
const (
	ArgsFD      = 3 // the NUL-separated argv (--args), so no list is too long
	StatusFD    = 4 // --json-status-fd: tells bwrap's setup failure from the command's exit
	SeccompFD   = 5 // --seccomp: the compiled BPF program
	ExeFD       = 6 // zsandbox itself, run as the Landlock stage 2 (/proc/self/fd/6)
	FirstFileFD = 7 // Plan.Files, in order
)

// MaxArgs is bubblewrap's limit on its arguments, those read through
// --args included: a larger policy cannot be run by bwrap at all.
const MaxArgs = 9000

// TooLarge says why bwrap cannot take the plan (more arguments than
// MaxArgs, counting the command and bwrap's own four), or "" when it can.
// exec refuses such a plan before it makes any placeholder; explain says so.
func (p Plan) TooLarge() string {
	if n := len(p.Args) + len(p.Command) + 4; n > MaxArgs {
		return fmt.Sprintf("the policy needs %d bwrap arguments, more than bubblewrap accepts (%d)", n, MaxArgs)
	}
	return ""
}

// Options are the parts of the plan that are not policy.
type Options struct {
	// Seccomp adds --seccomp SeccompFD.
	Seccomp bool
}

// Plan is what the runner passes to bwrap: the options (through --args
// ArgsFD), then "--" and the command on bwrap's own command line (bwrap
// ignores a command inside --args), and the files the options name.
type Plan struct {
	Args    []string
	Command []string
	// Files are passed from FirstFileFD on: a path is the source of a
	// --bind-fd / --ro-bind-fd, opened without following any symlink;
	// "" is an empty file for a --ro-bind-data mask.
	Files []string
}

// Args renders the plan for running argv under p.
func Args(p *policy.Policy, argv []string, o Options) Plan {
	var b builder
	b.namespaces(p.Network)
	// The base view: the whole host, read-only. Everything after this
	// carves exceptions into it, so it must come first.
	b.add("--ro-bind", "/", "/")
	// Fresh /dev (null, zero, tty, pts...) and /proc for the new PID
	// namespace; they replace the host's read-only copies from the base.
	b.add("--dev", "/dev")
	b.add("--proc", "/proc")
	// Read-only /proc: bwrap leaves /proc/sys writable, and a caller who is
	// root is global root to sysctl permission checks (core_pattern,
	// modprobe: code execution on the host). This also stops writes to
	// /proc/PID/mem; the cost is that /proc/self/oom_score_adj and the like
	// cannot be written.
	b.add("--remount-ro", "/proc")
	// Writable roots come after the base so they reopen parts of it for
	// writing; policy orders them parents first. Every bind takes its
	// source from a descriptor the runner opened without following
	// symlinks: a path could be swapped for a symlink by another sandboxed
	// command between policy resolution and bwrap's mount.
	rootOf := p.RootFinder()
	for _, r := range p.Writable {
		if _, nested := rootOf(r.Path); p.FileRoots[r.Path] && nested {
			// A file inside another root is writable already; a mount
			// on it would make git's lock-and-rename of a config
			// named with --writable fail (EBUSY).
			continue
		}
		b.add("--bind-fd", b.file(r.Path), r.Path)
	}
	// Directories between a protected or hidden path and its root are
	// pinned (bound onto themselves): a mount point cannot be renamed, so
	// "mv .git x && mkdir .git" or "mv ~/.docker ~/d" cannot step around
	// the protection or carry a masked secret to a name the next run does
	// not mask. Pins come before the binds and masks they would cover.
	for _, dir := range Pins(pinned(p)) {
		b.add("--bind-fd", b.file(dir), dir)
	}
	// Protected paths are re-bound read-only after the writable roots that
	// contain them, or the roots would cover them. A path that did not exist
	// has a placeholder made by the runner (see Placeholders).
	for _, pr := range p.Protected {
		if pr.Anchor != "" {
			continue // missing and uncreatable: its pinned anchor keeps it so
		}
		b.add("--ro-bind-fd", b.file(pr.Path), pr.Path)
	}
	// Hidden paths are masked last so nothing later can uncover them, not
	// even a writable root that contains them.
	for _, h := range p.Hidden {
		b.mask(h)
	}
	// bwrap itself runs without the loader variables (HostEnv): the
	// command gets them here.
	b.add(loaderEnv(p.Env)...)
	b.add("--chdir", p.Cwd)
	if o.Seccomp {
		b.add("--seccomp", itoa(SeccompFD))
	}
	b.add("--json-status-fd", itoa(StatusFD))
	return Plan{Args: b.args, Command: argv, Files: b.files}
}

// pinned lists the protected paths and the existing hidden paths that lie
// inside writable roots, each with its outermost root.
func pinned(p *policy.Policy) []policy.Protected {
	out := append([]policy.Protected(nil), p.Protected...)
	rootOf := p.RootFinder()
	for _, h := range p.Hidden {
		if root, ok := rootOf(h.Path); ok && h.Exists {
			out = append(out, policy.Protected{Path: h.Path, Root: root, Exists: true})
		}
	}
	return out
}

// Pins returns the directories strictly between each path and its
// writable root, parents first, each once; for a path with an anchor, the
// anchor too, and the directories between it and the root.
func Pins(prot []policy.Protected) []string {
	var out []string
	seen := map[string]bool{}
	for _, pr := range prot {
		top := filepath.Dir(pr.Path)
		if pr.Anchor != "" {
			top = pr.Anchor
		}
		rel := strings.TrimPrefix(top, pr.Root)
		dir := pr.Root
		for _, part := range strings.Split(strings.Trim(rel, "/"), "/") {
			if part == "" {
				continue
			}
			dir = filepath.Join(dir, part)
			if !seen[dir] {
				seen[dir] = true
				out = append(out, dir)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.Count(out[i], "/") < strings.Count(out[j], "/") })
	return out
}

// namespaces isolates everything bwrap can isolate. Capabilities are dropped
// because bwrap keeps them all when the caller is root (the command could
// remount / read-write), and further user namespaces are disabled so the
// command cannot gain fresh capabilities in a namespace of its own.
func (b *builder) namespaces(n policy.Network) {
	b.add("--unshare-all", "--unshare-user")
	// Under the allowlist the runner starts bwrap inside a network
	// namespace it made (package netns: only loopback and the proxy's
	// listener), which bwrap shares.
	if n == policy.NetworkAllow || n == policy.NetworkAllowlist {
		b.add("--share-net")
	}
	b.add("--disable-userns", "--new-session", "--die-with-parent", "--cap-drop", "ALL")
}

// mask hides one path so that reads and writes fail with an error (EACCES):
// an empty, mode-0000, read-only directory or file, never a writable tmpfs
// that would let a write "succeed" into nowhere. A mount point cannot be
// renamed (EBUSY), so the secret cannot be moved out from under the mask.
func (b *builder) mask(h policy.Hidden) {
	switch {
	case !h.Exists:
		// Nothing to hide; a path that does not exist cannot leak.
	case h.IsDir:
		b.add("--perms", "0000", "--tmpfs", h.Path, "--remount-ro", h.Path)
	default:
		b.add("--perms", "0000", "--ro-bind-data", b.file(""), h.Path)
	}
}

type builder struct {
	args  []string
	files []string
}

// file registers a descriptor the runner will pass and returns its number.
func (b *builder) file(source string) string {
	b.files = append(b.files, source)
	return itoa(FirstFileFD + len(b.files) - 1)
}

func (b *builder) add(args ...string) { b.args = append(b.args, args...) }

func itoa(n int) string { return strconv.Itoa(n) }
