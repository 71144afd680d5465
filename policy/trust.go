package policy

import (
	"fmt"
	"os"
	"path/filepath"
)

// Trust across runs. A sandboxed command can write every default root
// (/tmp, /var/tmp, $TMPDIR: shared by all runs and all users), the cwd and
// the --writable roots of any earlier run. zsandbox cannot know the earlier
// runs, so whatever the policy derives from the file system (a symlink on
// the way to a root, git's directories, a file it reads and then obeys) is
// judged by what the path is: who owns it, who may write its directory,
// whether it lies under a shared root. Never by "it was fine last time".

// trust holds the facts those judgements need.
type trust struct {
	uid, gid int
	// overflow is the uid that unmapped owners show as inside a user
	// namespace that does not map root (-1 when every uid is mapped);
	// there root's files carry it, and it stands for root.
	overflow int
	shared   pathSet // the shared default roots, as written and resolved
	home     string
}

// systemLinkDirs are where a root caller follows symlinks: for root, an
// owner says nothing (an earlier root run with --writable DIR made root's
// files in DIR), so only the directories that hold the system's own links
// (/var/run, /lib, /bin; macOS /tmp, /var, /etc) and that no one names as a
// writable root ("/" is refused outright) are trusted.
var systemLinkDirs = map[string]bool{"/": true, "/usr": true, "/var": true}

func newTrust(host Host, fs *symlinks) *trust {
	t := &trust{uid: host.Uid, gid: host.Gid, overflow: host.Overflow, shared: pathSet{}, home: host.Home}
	for _, s := range sharedRoots(host) {
		t.shared.add(filepath.Clean(s))
		t.shared.add(fs.walk(filepath.Clean(s), 0).path)
	}
	return t
}

// sharedRoots are the default roots every run of every user may write.
func sharedRoots(host Host) []string {
	out := []string{"/tmp", "/var/tmp"}
	if t := host.Getenv("TMPDIR"); filepath.IsAbs(t) {
		out = append(out, t)
	}
	return out
}

func (t *trust) rootOwned(uid int) bool {
	return uid == 0 || (t.overflow > 0 && uid == t.overflow)
}

// ownOrRoot says the owner uid is the caller or root.
func (t *trust) ownOrRoot(uid int) bool {
	return uid == t.uid || t.rootOwned(uid)
}

// stat is what a trust decision reads about one path (not following a
// final symlink).
type stat struct {
	uid, gid int
	mode     os.FileMode
}

func lstatOwner(path string) (stat, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return stat{}, false
	}
	uid, gid, ok := ownerOf(fi)
	return stat{uid: uid, gid: gid, mode: fi.Mode()}, ok
}

// othersMayWrite says whether someone but the caller (or root) could
// write the directory st describes: writable by others, or by a group
// that is not the caller's own.
func (t *trust) othersMayWrite(st stat) bool {
	return st.mode&0o002 != 0 || (st.mode&0o020 != 0 && st.gid != t.gid)
}

// unfollowable says why the symlink link is not to be followed to a
// writable root ("" when it may be): a sandboxed command could have
// planted it. Followed are only root's links in a root-owned directory
// that no group or other may write, outside the shared roots (for a root
// caller: in the system's link directories only).
func (t *trust) unfollowable(link string) string {
	l, okL := lstatOwner(link)
	d, okD := lstatOwner(filepath.Dir(link))
	if !okL || !okD {
		return "it cannot be examined"
	}
	return t.linkVerdict(filepath.Dir(link), l, d)
}

// linkVerdict is unfollowable's decision from the facts: l about the
// link, d about its directory dir.
func (t *trust) linkVerdict(dir string, l, d stat) string {
	switch {
	case t.shared.under(dir):
		return "it lies under a shared writable root"
	case !t.rootOwned(l.uid):
		return fmt.Sprintf("it is owned by uid %d, not root", l.uid)
	case !t.rootOwned(d.uid) || d.mode&0o022 != 0:
		return fmt.Sprintf("its directory %q is not root's alone", dir)
	case t.uid == 0 && !systemLinkDirs[dir]:
		return "zsandbox runs as root, and root follows only the system's own links (in /, /usr, /var): an earlier run could have made root's files in any root it had"
	}
	return ""
}

// firstUnfollowable returns the first of links that is not to be
// followed, and why.
func (t *trust) firstUnfollowable(links []string) (link, why string) {
	for _, l := range links {
		if why := t.unfollowable(l); why != "" {
			return l, why
		}
	}
	return "", ""
}

// checkLinks refuses a derived root reached through a symlink that a
// sandboxed command could have planted (swapped a directory for it).
func (t *trust) checkLinks(what, asked string, r resolved) error {
	link, why := t.firstUnfollowable(r.links)
	if link == "" {
		return nil
	}
	return &UnsafeError{
		Msg: fmt.Sprintf("%s %q goes through the symlink %q, which a sandboxed command could have planted (%s); following it could widen this run beyond what you named",
			what, asked, link, why),
		Hint: fmt.Sprintf("name the real directory %s", r.path),
	}
}

// safeTop says whether a directory holding a .git counts at all: nobody
// but the caller (or root) may have put the .git there. A .git in a
// directory others may write, or owned by another user, is not a
// repository zsandbox widens or protects; neither would git use it (its
// safe.directory rule), and protecting it could let one user deny others
// the sandbox (a root-owned /tmp/.git: no placeholder can be made in it).
func (t *trust) safeTop(top string) bool {
	st, ok := lstatOwner(top)
	if !ok || t.othersMayWrite(st) {
		return false
	}
	return st.uid == t.uid || t.rootOwned(st.uid) || t.uid == 0
}

// guardsTop says whether the git files of a repository whose top is a
// writable root are protected: when its .git counts (safeTop), and also
// when others may write the top but it and its .git are the caller's (a
// CI workspace made mode 777, a team's group-writable checkout): git uses
// such a repository (safe.directory looks at owners only), and protecting
// it widens nothing. Another user's .git there (git refuses it) and a
// shared root's own stay out: a symlink in them would deny the caller
// every run.
func (t *trust) guardsTop(top string) bool {
	if t.safeTop(top) {
		return true
	}
	if t.shared[top] {
		return false
	}
	for _, p := range []string{top, filepath.Join(top, ".git")} {
		if st, ok := lstatOwner(p); ok && st.uid != t.uid {
			return false
		}
	}
	_, ok := lstatOwner(top)
	return ok
}

// InputError refuses a file zsandbox would read and then obey (a seccomp
// profile, a settings file) that a sandboxed command could have written.
func inputError(what, path, why string) error {
	return &UnsafeError{
		Msg:  fmt.Sprintf("%s %q %s: a sandboxed command could have written it, and zsandbox would obey it", what, path, why),
		Hint: fmt.Sprintf("keep %s in a directory only you can write, outside every writable root and outside /tmp, /var/tmp and $TMPDIR", what),
	}
}

// CheckInput refuses the file at path, which zsandbox is about to read and
// obey (what names it in the message), when a sandboxed command could have
// written it: reached through a symlink it could have planted, under a
// shared root, in a directory (or a file) others may write or another
// user owns, or, unless
// rootsOK, inside one of this run's writable roots (this run could rewrite
// it for the next one). A file that does not exist passes: the caller
// reports it.
func (p *Policy) CheckInput(what, path string, rootsOK bool) error {
	t := p.trust
	r := newSymlinks().walk(filepath.Clean(path), 0)
	if link, why := t.firstUnfollowable(r.links); link != "" {
		return inputError(what, path, fmt.Sprintf("is reached through the symlink %q (%s)", link, why))
	}
	if !r.exists {
		return nil
	}
	f, okF := lstatOwner(r.path)
	d, okD := lstatOwner(filepath.Dir(r.path))
	switch {
	case t.shared.under(r.path):
		return inputError(what, path, "lies under a shared writable root (/tmp, /var/tmp or $TMPDIR)")
	case !okF || !okD || t.othersMayWrite(f) || t.othersMayWrite(d):
		return inputError(what, path, "may be written by other users (it or its directory is group- or world-writable)")
	case !t.ownOrRoot(f.uid) || !t.ownOrRoot(d.uid):
		// The owner may write it, and chmod it: another user's
		// sandboxed runs (or the user) could rewrite what this one obeys.
		return inputError(what, path, "belongs to another user (it or its directory is owned by neither you nor root)")
	}
	if root, ok := p.RootFinder()(r.path); ok && !rootsOK {
		return inputError(what, path, fmt.Sprintf("lies inside the writable root %q of this run", root))
	}
	return nil
}

// SystemBinary returns the real path of the program at path, which
// zsandbox is about to run outside the sandbox (bwrap), or why it must
// not: unless the file, every directory above it and every symlink on the
// way are root's alone, and it lies outside the writable roots, $HOME and
// the shared roots, an earlier sandboxed run could have planted it.
func SystemBinary(host Host, path string, writable []string) (string, error) {
	return newTrust(host, newSymlinks()).systemBinary(path, writable)
}

// SystemBinary is the package function with this policy's facts.
func (p *Policy) SystemBinary(path string) (string, error) {
	return p.trust.systemBinary(path, p.WritablePaths())
}

func (t *trust) systemBinary(path string, writable []string) (string, error) {
	r := newSymlinks().walk(filepath.Clean(path), 0)
	if !r.exists {
		return "", fmt.Errorf("%q does not exist", path)
	}
	if link, why := t.firstUnfollowable(r.links); link != "" {
		return "", fmt.Errorf("%q is reached through the symlink %q (%s)", path, link, why)
	}
	for d := r.path; ; d = filepath.Dir(d) {
		st, ok := lstatOwner(d)
		if !ok || !t.rootOwned(st.uid) || st.mode&0o022 != 0 {
			return "", fmt.Errorf("%q is not root's alone (owner or group/other write permission), so a sandboxed command could have planted %q", d, path)
		}
		if d == "/" {
			break
		}
	}
	if WithinAny(r.path, writable) || Within(r.path, t.home) || t.shared.under(r.path) {
		return "", fmt.Errorf("%q lies in a directory a sandboxed command may write (a writable root, $HOME, /tmp, /var/tmp or $TMPDIR)", path)
	}
	return r.path, nil
}
