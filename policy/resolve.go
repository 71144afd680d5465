package policy

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/zsandbox/zsandbox/profiles"
)

// Host holds the facts about the caller that a policy depends on.
type Host struct {
	Cwd  string   // the caller's working directory
	Home string   // the caller's home directory
	Env  []string // the caller's environment, KEY=VALUE
}

// Getenv returns the value of name in the host environment.
func (h Host) Getenv(name string) string {
	for i := len(h.Env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(h.Env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// Path is a user-written path and where it was written.
type Path struct {
	Path   string
	Source Source
}

// Request is what the user asked for: flags, environment variables and
// settings already merged (precedence is the caller's business).
type Request struct {
	Cwd      string // "" means the host's cwd
	Writable []Path
	Hide     []string
	Network  string // "" means deny
	SetEnv   []string
	PassEnv  []string
}

// UsageError is a mistake in what the user asked for; the CLI exits 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// Resolve computes the Policy for req on host.
func Resolve(req Request, host Host) (*Policy, error) {
	if host.Home == "" {
		return nil, usagef("home directory unknown: set HOME")
	}
	network, err := parseNetwork(req.Network)
	if err != nil {
		return nil, err
	}
	cwd, err := resolveCwd(req.Cwd, host)
	if err != nil {
		return nil, err
	}
	p := &Policy{Cwd: cwd, Home: CanonicalLoose(host.Home), Network: network}
	if p.Hidden, err = resolveHidden(req.Hide, p.Home, cwd); err != nil {
		return nil, err
	}
	if err := p.addWritable(req.Writable, host); err != nil {
		return nil, err
	}
	if err := p.resolveProtected(); err != nil {
		return nil, err
	}
	if p.Env, p.DroppedEnv, err = resolveEnv(host.Env, req.SetEnv, req.PassEnv); err != nil {
		return nil, err
	}
	return p, nil
}

func parseNetwork(s string) (Network, error) {
	switch Network(s) {
	case "", NetworkDeny:
		return NetworkDeny, nil
	case NetworkAllow:
		return NetworkAllow, nil
	}
	return "", usagef("--network %q: must be allow or deny", s)
}

func resolveCwd(dir string, host Host) (string, error) {
	if dir == "" {
		dir = host.Cwd
	}
	abs, err := Expand(dir, host.Home, host.Cwd)
	if err != nil {
		return "", usagef("--cwd: %v", err)
	}
	c, err := Canonical(abs)
	if err != nil {
		return "", usagef("--cwd %q: no such directory", dir)
	}
	if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
		return "", usagef("--cwd %q: not a directory", dir)
	}
	return c, nil
}

// resolveHidden expands the default credential list plus the user's --hide
// entries. A hidden path that does not exist is kept (explain reports it);
// there is nothing to leak, and later protections may still need the name.
func resolveHidden(extra []string, home, cwd string) ([]Hidden, error) {
	var out []Hidden
	seen := map[string]bool{}
	for _, raw := range append(profiles.Hidden(), extra...) {
		abs, err := Expand(raw, home, cwd)
		if err != nil {
			return nil, usagef("--hide: %v", err)
		}
		h := hiddenFact(abs)
		if h.Path == "/" {
			return nil, usagef("--hide %q: cannot hide the root directory", raw)
		}
		if !seen[h.Path] && !withinHidden(h.Path, out) {
			seen[h.Path] = true
			out = append(out, h)
		}
	}
	return out, nil
}

func withinHidden(p string, hs []Hidden) bool {
	for _, h := range hs {
		if Within(p, h.Path) {
			return true
		}
	}
	return false
}

func hiddenFact(abs string) Hidden {
	c := CanonicalLoose(abs)
	fi, err := os.Stat(c)
	if err != nil {
		return Hidden{Path: c}
	}
	return Hidden{Path: c, Exists: true, IsDir: fi.IsDir()}
}

// addWritable builds the writable roots: defaults first, then what the user
// named. Hidden beats writable: a root inside a hidden path is left out.
func (p *Policy) addWritable(asked []Path, host Host) error {
	cands := p.defaultRoots(host)
	for _, a := range asked {
		abs, err := Expand(a.Path, p.Home, p.Cwd)
		if err != nil {
			return usagef("writable root %q: %v", a.Path, err)
		}
		c, err := Canonical(abs)
		if err != nil {
			return usagef("writable root %q: no such directory", a.Path)
		}
		cands = append(cands, Root{Path: c, Source: a.Source})
	}
	seen := map[string]bool{}
	for _, r := range cands {
		switch {
		case seen[r.Path]:
		case WithinAny(r.Path, p.HiddenPaths()):
			p.Omitted = append(p.Omitted, Omitted{r.Path, r.Source, "inside a hidden path"})
		default:
			p.Writable = append(p.Writable, r)
		}
		seen[r.Path] = true
	}
	sortRoots(p.Writable)
	return nil
}

// defaultRoots returns cwd, TMPDIR, /tmp, /var/tmp and git's directories;
// a default that does not exist is recorded in Omitted, not an error.
func (p *Policy) defaultRoots(host Host) []Root {
	roots := []Root{{Path: p.Cwd, Source: SourceCwd}}
	type cand struct {
		path string
		src  Source
	}
	cands := []cand{}
	if t := host.Getenv("TMPDIR"); t != "" {
		cands = append(cands, cand{t, SourceTmpDir})
	}
	cands = append(cands, cand{"/tmp", SourceDefault}, cand{"/var/tmp", SourceDefault})
	for _, g := range gitRoots(p.Cwd) {
		cands = append(cands, cand{g.Path, g.Source})
	}
	for _, c := range cands {
		r, err := existingDir(c.path, p.Cwd)
		if err != nil {
			p.Omitted = append(p.Omitted, Omitted{c.path, c.src, err.Error()})
			continue
		}
		roots = append(roots, Root{Path: r, Source: c.src})
	}
	return roots
}

func existingDir(path, cwd string) (string, error) {
	if !strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("not an absolute path")
	}
	c, err := Canonical(path)
	if err != nil {
		return "", fmt.Errorf("does not exist")
	}
	if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("not a directory")
	}
	return c, nil
}

// sortRoots orders roots parents first, so a planner that binds them in order
// never covers a nested root with its parent.
func sortRoots(rs []Root) {
	sort.SliceStable(rs, func(i, j int) bool {
		di, dj := strings.Count(rs[i].Path, "/"), strings.Count(rs[j].Path, "/")
		if di != dj {
			return di < dj
		}
		return rs[i].Path < rs[j].Path
	})
}
