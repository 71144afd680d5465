package denymsg

import (
	"path"
	"strings"

	"github.com/zsandbox/zsandbox/policy"
)

// Facts is what the recogniser knows about the sandbox the command ran in.
// Paths are absolute and clean, in the same vocabulary as the policy.
type Facts struct {
	Writable  []string // writable roots (--writable)
	Hidden    []string // hidden paths (--hide and the defaults)
	Protected []string // protected paths: read-only inside writable roots
	// Purpose says what a protected path is for ("git hooks, run by
	// commit..."), keyed by the path as it is in Protected.
	Purpose     map[string]string
	NetworkDeny bool // --network deny
	// UnixDeny: unix sockets made outside the sandbox are out of reach (no
	// --allow-unix-sockets), in every network mode.
	UnixDeny bool

	// Cwd is the directory the command started in. A relative path in a
	// message is resolved against it; without it (or when the message is not
	// absolute and Cwd is empty) the path cannot be placed and counts as
	// unknown. Commands that change directory make this a guess, which is why
	// a read-only error on a relative path that lands in a writable root is
	// reported without a path instead of being dropped.
	Cwd string
}

// Exit is how the command ended.
type Exit struct {
	Code   int // exit status; 128+N when the command died of signal N
	Signal int // the signal that killed the command (Linux numbering), 0 if it exited
}

// sigsys is SIGSYS on Linux, the only platform with a system-call filter.
const sigsys = 31

func (e Exit) failed() bool { return e.Code != 0 || e.Signal != 0 }

// clean returns a copy of f with every path cleaned and empty entries dropped.
func (f Facts) clean() Facts {
	f.Writable = cleanAll(f.Writable)
	f.Hidden = cleanAll(f.Hidden)
	f.Protected = cleanAll(f.Protected)
	if f.Cwd != "" {
		f.Cwd = path.Clean(f.Cwd)
	}
	return f
}

func cleanAll(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if p != "" {
			out = append(out, path.Clean(p))
		}
	}
	return out
}

// within returns the most specific entry of list that p lies under.
func within(p string, list []string) (string, bool) {
	best, found := "", false
	for _, e := range list {
		if e == "" {
			continue
		}
		e = path.Clean(e)
		if policy.Within(p, e) && (!found || len(e) > len(best)) {
			best, found = e, true
		}
	}
	return best, found
}

// resolve turns a path named by a message into an absolute clean path. It
// returns "" when the path cannot be placed: "~" paths, URLs, and relative
// paths without a Cwd. rel reports that cwd was used.
func resolve(raw, cwd string) (p string, rel bool) {
	switch {
	case raw == "", strings.Contains(raw, "://"), strings.HasPrefix(raw, "~"):
		return "", false
	case strings.HasPrefix(raw, "/"):
		return path.Clean(raw), false
	case strings.HasPrefix(cwd, "/"):
		return path.Join(cwd, raw), true
	}
	return "", false
}
