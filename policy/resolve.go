package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Host holds the facts about the caller that a policy depends on.
type Host struct {
	Cwd string // the caller's working directory
	// CwdInfo is what stat(".") said about it, when known: the resolved
	// cwd must be that very directory (a concurrent command could swap a
	// component of the path for a symlink while it is being resolved).
	CwdInfo os.FileInfo
	Home    string // the caller's home directory ($HOME)
	// AccountHome is the home directory the password database gives the
	// caller's uid; "" when unknown. Tools that ignore $HOME (ssh) read
	// their credentials there, so the defaults are hidden under both.
	AccountHome string
	// SudoHome is the password database's home of the user who ran sudo
	// (SUDO_UID), when that is not the caller: `sudo zsandbox` keeps
	// HOME=/root, and that user's world-readable stores (a 0644 ~/.pypirc)
	// are hidden as the account home's are. "" otherwise.
	SudoHome string
	Env      []string // the caller's environment, KEY=VALUE
	// Uid and Gid are the caller's effective ids; Overflow is the uid that
	// unmapped owners show as in a user namespace that does not map root
	// (-1 or 0 when every uid is mapped). The trust rules read them.
	Uid, Gid, Overflow int
	// Exe is zsandbox's own binary, when known: inside a writable root it
	// is protected, or a command could replace what the next call runs.
	Exe string
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
	// Protect adds protected paths (--protect, ZSANDBOX_PROTECT, settings).
	Protect []Path
	Network string // "" means deny, or the allowlist with AllowDomains
	// AllowDomains and DenyDomains are --allow-domain / --deny-domain.
	AllowDomains, DenyDomains []string
	// UnixSockets is --allow-unix-sockets.
	UnixSockets bool
	SetEnv      []string
	PassEnv     []string
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
	if h := host.Getenv("HOME"); h != "" && !filepath.IsAbs(h) {
		// The hidden paths would come from one home and the command's
		// tools would look for credentials in another.
		return nil, usagef("HOME %q is not an absolute path: set HOME to your home directory, or unset it to use the account's", h)
	}
	network, allowlist, err := resolveNetwork(req.Network, req.AllowDomains, req.DenyDomains)
	if err != nil {
		return nil, err
	}
	fs := newSymlinks()
	t := newTrust(host, fs)
	cwd, err := resolveCwd(req.Cwd, host, fs, t)
	if err != nil {
		return nil, err
	}
	home := fs.walk(filepath.Clean(host.Home), 0)
	p := &Policy{Cwd: cwd, Home: home.path, Network: network, Allowlist: allowlist, UnixSockets: req.UnixSockets, trust: t}
	var via []linked
	if p.Hidden, via, err = resolveHidden(req.Hide, host, p.Home, cwd, fs); err != nil {
		return nil, err
	}
	if err := cwdVisible(cwd, p.Hidden); err != nil {
		return nil, err
	}
	if err := p.addWritable(req.Writable, host, fs); err != nil {
		return nil, err
	}
	if err := p.hiddenLinks(append(via, linked{"home " + host.Home, home.links})); err != nil {
		return nil, err
	}
	if err := p.resolveProtected(req.Protect, host, fs, host.Exe); err != nil {
		return nil, err
	}
	if p.Env, p.DroppedEnv, err = resolveEnv(host.Env, req.SetEnv, req.PassEnv); err != nil {
		return nil, err
	}
	return p, nil
}

// cwdVisible refuses a working directory inside a hidden path: the
// sandbox could not even enter it.
func cwdVisible(cwd string, hidden []Hidden) error {
	for _, h := range hidden {
		if h.Exists && Within(cwd, h.Path) {
			return &UnsafeError{
				Msg:  fmt.Sprintf("the working directory %q is inside the hidden path %q%s", cwd, h.Path, h.Source.because()),
				Hint: "run the command from another directory; hidden paths cannot be seen inside the sandbox",
			}
		}
	}
	return nil
}

func parseNetwork(s string) (Network, error) {
	switch Network(s) {
	case "", NetworkDeny:
		return NetworkDeny, nil
	case NetworkAllow:
		return NetworkAllow, nil
	}
	return "", usagef("--network %q: must be allow, deny or allowlist (with --allow-domain)", s)
}

func resolveCwd(dir string, host Host, fs *symlinks, t *trust) (string, error) {
	what := fmt.Sprintf("--cwd %q", dir)
	if dir == "" {
		dir = host.Cwd
		what = fmt.Sprintf("the working directory %q", dir)
	}
	abs, err := Expand(dir, host.Home, host.Cwd)
	if err != nil {
		return "", usagef("%s: %v", what, err)
	}
	r := fs.walk(abs, 0)
	if !r.exists {
		return "", usagef("%s: no such directory", what)
	}
	if why := kernelTree(r.path); why != "" {
		return "", usagef("the working directory %q is a writable root and %s; run from a project directory, or name one with --cwd DIR", r.path, why)
	}
	if err := t.checkLinks("the working directory", dir, r); err != nil {
		return "", err
	}
	c := r.path
	if dir == host.Cwd && host.CwdInfo != nil {
		if fi, err := os.Stat(c); err != nil || !os.SameFile(fi, host.CwdInfo) {
			return "", &UnsafeError{
				Msg:  fmt.Sprintf("the working directory resolved to %q, which is not the directory zsandbox was started in: a path component changed while it was resolved", c),
				Hint: "another process is renaming directories above the working directory; run again once it stops",
			}
		}
	}
	if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
		return "", usagef("%s: not a directory", what)
	}
	return c, nil
}

// resolveHidden expands the default credential list plus the user's --hide
// entries. A hidden path that does not exist is kept (explain reports it);
// there is nothing to leak, and later protections may still need the name.
func resolveHidden(extra []string, host Host, home, cwd string, fs *symlinks) ([]Hidden, []linked, error) {
	var out []Hidden
	var via []linked
	seen := pathSet{}
	add := func(h Hidden) {
		if !seen.under(h.Path) {
			seen.add(h.Path)
			out = append(out, h)
		}
	}
	var accountHomes []string
	for _, h := range []string{host.AccountHome, host.SudoHome} {
		if h != "" && filepath.IsAbs(h) {
			r := fs.walk(filepath.Clean(h), 0)
			accountHomes = append(accountHomes, r.path)
			via = append(via, linked{fmt.Sprintf("the account home %q", h), r.links})
		}
	}
	for _, c := range defaultCandidates(host, home, accountHomes, cwd) {
		r := fs.walk(c.path, 0)
		via = append(via, linked{fmt.Sprintf("hidden path %q", c.path), r.links})
		h := hiddenFact(r)
		h.Source = c.source
		// A variable that points at "/" or into a kernel tree (KUBECONFIG=
		// /dev/fd/63 from a process substitution) names nothing the
		// sandbox shows from the host: there is nothing to mask.
		if kernelTree(h.Path) == "" {
			add(h)
		}
	}
	for _, raw := range extra {
		abs, err := Expand(raw, home, cwd)
		if err != nil {
			return nil, nil, usagef("--hide: %v", err)
		}
		r := fs.walk(abs, 0)
		via = append(via, linked{fmt.Sprintf("hidden path %q", abs), r.links})
		h := hiddenFact(r)
		if h.Path == "/" {
			return nil, nil, usagef("--hide %q: cannot hide the root directory", raw)
		}
		add(h)
	}
	return out, via, nil
}

// linked is a path (as the message names it) and the symlinks followed to
// resolve it.
type linked struct {
	what  string
	links []string
}

// hiddenLinks refuses a hidden path (or a home they are found in) reached
// through a symlink inside a writable root (~/.kube -> dotfiles/kube with
// $HOME writable): the command could replace the symlink with an empty
// directory, and the next run would hide that while the real files lie
// open under their own name.
func (p *Policy) hiddenLinks(via []linked) error {
	rootOf := p.RootFinder()
	for _, v := range via {
		for _, l := range v.links {
			if root, ok := rootOf(l); ok {
				return &UnsafeError{
					Msg:  fmt.Sprintf("%s is reached through the symlink %q inside the writable root %q; the command could replace the symlink and the next run would hide the wrong thing", v.what, l, root),
					Hint: fmt.Sprintf("replace the symlink %s with what it points to, or run from a directory that does not contain it", l),
				}
			}
		}
	}
	return nil
}

func hiddenFact(r resolved) Hidden {
	if r.exists {
		// A placeholder another run put there is not a secret to mask: it
		// is taken as missing, so this run shares it under its lock.
		if PlaceholderAt(r.path) {
			return Hidden{Path: r.path}
		}
	}
	return Hidden{Path: r.path, Exists: r.exists, IsDir: r.isDir}
}

// addWritable builds the writable roots: defaults first, then what the user
// named. Hidden beats writable: a root inside a hidden path is left out.
func (p *Policy) addWritable(asked []Path, host Host, fs *symlinks) error {
	cands, err := p.defaultRoots(host, fs)
	if err != nil {
		return err
	}
	for _, a := range asked {
		abs, err := Expand(a.Path, p.Home, p.Cwd)
		if err != nil {
			return usagef("writable root %q: %v", a.Path, err)
		}
		r := fs.walk(abs, 0)
		if !r.exists {
			return usagef("writable root %q: no such directory", a.Path)
		}
		if err := p.trust.checkLinks("writable root", a.Path, r); err != nil {
			return err
		}
		c := r.path
		if why := kernelTree(c); why != "" {
			return usagef("writable root %q %s; name narrower directories", a.Path, why)
		}
		if fi, err := os.Stat(c); err == nil && !fi.IsDir() {
			if p.FileRoots == nil {
				p.FileRoots = map[string]bool{}
			}
			p.FileRoots[c] = true
		}
		cands = append(cands, Root{Path: c, Source: a.Source})
	}
	seen := map[string]bool{}
	hidden := pathSet{}
	for _, h := range p.Hidden {
		hidden.add(h.Path)
	}
	for _, r := range cands {
		switch {
		case seen[r.Path]:
		case hidden.under(r.Path):
			p.Omitted = append(p.Omitted, Omitted{r.Path, r.Source, "inside a hidden path"})
		default:
			p.Writable = append(p.Writable, r)
		}
		seen[r.Path] = true
	}
	sortRoots(p.Writable)
	return checkKernelMounts(p.Writable, kernelMounts())
}

// checkKernelMounts refuses a writable root, whatever its source, that
// holds or lies in a mount of a kernel file system.
func checkKernelMounts(roots []Root, mounts []kernelMount) error {
	for _, r := range roots {
		if why := kernelMountIn(r.Path, mounts); why != "" {
			return usagef("writable root %q (%s) %s; unmount it, or name narrower directories", r.Path, r.Source, why)
		}
	}
	return nil
}

// defaultRoots returns cwd, TMPDIR, /tmp, /var/tmp and git's directories;
// a default that does not exist is recorded in Omitted, not an error. One
// that is "/" or a kernel tree is refused like such a --writable: leaving it
// out would hide a misconfiguration (or a planted .git) behind a command
// that mysteriously cannot write its TMPDIR.
func (p *Policy) defaultRoots(host Host, fs *symlinks) ([]Root, error) {
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
	gits, doubted := p.trust.gitRoots(p.Cwd)
	p.Omitted = append(p.Omitted, doubted...)
	for _, g := range gits {
		cands = append(cands, cand{g.Path, g.Source})
	}
	for _, c := range cands {
		r, err := existingDir(c.path, fs)
		if err != nil {
			p.Omitted = append(p.Omitted, Omitted{c.path, c.src, err.Error()})
			continue
		}
		if why := kernelTree(r); why != "" {
			return nil, usagef("%s %q is a writable root and %s; %s", c.src, c.path, why, derivedFix(c.src))
		}
		if err := p.trust.checkLinks(string(c.src), c.path, fs.walk(filepath.Clean(c.path), 0)); err != nil {
			return nil, err
		}
		roots = append(roots, Root{Path: r, Source: c.src})
	}
	return roots, nil
}

// derivedFix says how to change a default root that may not be one.
func derivedFix(src Source) string {
	switch src {
	case SourceTmpDir:
		return "set TMPDIR to a directory of your own, or unset it"
	case SourceDefault:
		return "it is a symlink into a kernel tree: make it a plain directory"
	}
	return "the repository's .git file names it: fix that file, or run from outside the repository"
}

// kernelTree says why a writable root is refused: "/" and anything under
// /proc, /sys or /dev (but /dev/shm) would cover the sandbox's own
// read-only /proc and fresh /dev with the host's, writable. It applies to
// every root, named or derived (cwd, TMPDIR, git's directories). The
// reason reads as the rest of a sentence about the root.
func kernelTree(root string) string {
	switch {
	case root == "/":
		return "would make the whole machine writable, the host's /proc, /sys and /dev included"
	case root == "/dev/shm" || Within(root, "/dev/shm"):
		return ""
	case Within(root, "/proc"), Within(root, "/sys"), Within(root, "/dev"):
		return "would open the host's kernel and device trees (/proc, /sys, /dev but /dev/shm) for writing"
	}
	return ""
}

func existingDir(path string, fs *symlinks) (string, error) {
	if !strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("not an absolute path")
	}
	r := fs.walk(filepath.Clean(path), 0)
	switch {
	case !r.exists:
		return "", fmt.Errorf("does not exist")
	case !r.isDir:
		return "", fmt.Errorf("not a directory")
	}
	return r.path, nil
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
