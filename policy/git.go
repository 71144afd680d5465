package policy

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// GitLayout describes the repository that contains a directory, read from
// git's own files (no git process is spawned).
type GitLayout struct {
	// WorkTree is the top of the working tree (the directory holding .git).
	WorkTree string
	// GitDir is the repository's private directory: WorkTree/.git for a plain
	// repository, the per-worktree directory for a linked worktree.
	GitDir string
	// CommonDir holds objects, refs, hooks and config; equal to GitDir except
	// in a linked worktree.
	CommonDir string
	// PointerFile is WorkTree/.git when it is a "gitdir:" file, else "".
	PointerFile string
	// Verified says git's back-pointers hold, so the layout's directories
	// may become writable roots: a .git directory; a linked worktree whose
	// gitdir is <CommonDir>/worktrees/<id>, whose <id>/gitdir names this
	// PointerFile, and whose CommonDir is a repository; a submodule whose
	// core.worktree names this WorkTree. A .git file alone can be written by
	// any command in its directory and name any directory on the machine.
	Verified bool
}

// AdminFiles are the files that decide where this layout's directories
// are: the .git pointer file and a linked worktree's commondir and gitdir.
// A command that rewrote them could point the user's next git, and the
// next run's roots, at a directory of its choosing: they are protected.
func (l GitLayout) AdminFiles() []string {
	var out []string
	if l.PointerFile != "" {
		out = append(out, l.PointerFile)
	}
	if l.GitDir != l.CommonDir {
		out = append(out, filepath.Join(l.GitDir, "commondir"), filepath.Join(l.GitDir, "gitdir"))
	}
	return out
}

// FindGit walks up from dir to the nearest .git and reads the layout.
func FindGit(dir string) (GitLayout, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if l, ok := readGit(d); ok {
			return l, true
		}
		if d == "/" {
			return GitLayout{}, false
		}
	}
}

// readGit reads the layout at top as git would use it (commondir is not
// checked by git) and says whether it is Verified.
func readGit(top string) (GitLayout, bool) {
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return GitLayout{}, false
	}
	if fi.IsDir() {
		return GitLayout{WorkTree: top, GitDir: dotgit, CommonDir: dotgit, Verified: true}, true
	}
	if !fi.Mode().IsRegular() {
		return GitLayout{}, false
	}
	gitDir, ok := readDir(dotgit, filepath.Dir(dotgit), "gitdir:")
	if !ok {
		return GitLayout{}, false
	}
	l := GitLayout{WorkTree: top, GitDir: gitDir, CommonDir: gitDir, PointerFile: dotgit}
	// A commondir naming the git dir itself (".", what zsandbox's
	// placeholder for a missing one holds while another run is on) is no
	// commondir, to git as here.
	if common, ok := readDir(filepath.Join(gitDir, "commondir"), gitDir, ""); ok && common != gitDir {
		l.CommonDir = common
		l.Verified = isWorktreeOf(l)
	} else {
		l.Verified = isSubmoduleOf(l)
	}
	return l, true
}

// isWorktreeOf checks a linked worktree's back-pointer, as git's
// worktree code does and more: <common>/worktrees/<id> must be the git
// dir, its gitdir file must name this worktree's .git file, and common
// must be a repository.
func isWorktreeOf(l GitLayout) bool {
	if filepath.Dir(l.GitDir) != filepath.Join(l.CommonDir, "worktrees") || !isGitDir(l.CommonDir) {
		return false
	}
	back, ok := readPath(filepath.Join(l.GitDir, "gitdir"), l.GitDir, "")
	return ok && back == l.PointerFile
}

// isSubmoduleOf checks an absorbed submodule's back-pointer: the git dir
// is a repository whose core.worktree names this working tree.
func isSubmoduleOf(l GitLayout) bool {
	if !isGitDir(l.GitDir) {
		return false
	}
	wt, ok := coreWorktree(filepath.Join(l.GitDir, "config"))
	if !ok {
		return false
	}
	if !filepath.IsAbs(wt) {
		wt = filepath.Join(l.GitDir, wt)
	}
	c, err := Canonical(wt)
	return err == nil && c == l.WorkTree
}

// isGitDir is git's is_git_directory: HEAD, objects/ and refs/.
func isGitDir(d string) bool {
	head, err1 := os.Lstat(filepath.Join(d, "HEAD"))
	objs, err2 := os.Stat(filepath.Join(d, "objects"))
	refs, err3 := os.Stat(filepath.Join(d, "refs"))
	return err1 == nil && err2 == nil && err3 == nil && !head.IsDir() && objs.IsDir() && refs.IsDir()
}

// coreWorktree reads core.worktree from a git config file: the plain
// "key = value" form git itself writes there.
func coreWorktree(file string) (string, bool) {
	b, ok := readSmall(file, maxConfigSize)
	if !ok {
		return "", false
	}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(line, "[] \t"))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && section == "core" && strings.EqualFold(strings.TrimSpace(k), "worktree") {
			return strings.Trim(strings.TrimSpace(v), `"`), true
		}
	}
	return "", false
}

// readSmall reads a regular file of at most max bytes. The git files
// zsandbox reads may have been made by an earlier run: a FIFO (opened
// without blocking) or /dev/zero in their place must not hang every
// later run, nor a huge file slow it.
func readSmall(file string, max int64) ([]byte, bool) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || int64(len(b)) > max {
		return nil, false
	}
	return b, true
}

// readDir reads a one-line path file (see readPath) that must name an
// existing directory.
func readDir(file, base, prefix string) (string, bool) {
	c, ok := readPath(file, base, prefix)
	if !ok {
		return "", false
	}
	if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
		return "", false
	}
	return c, true
}

// readPath reads a one-line path file (after an optional prefix) and
// resolves it against base; the result exists and is symlink-free.
func readPath(file, base, prefix string) (string, bool) {
	b, ok := readSmall(file, 4096)
	if !ok {
		return "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line, ok = strings.CutPrefix(line, prefix)
	line = strings.TrimSpace(line)
	if !ok || line == "" {
		return "", false
	}
	if !filepath.IsAbs(line) {
		line = filepath.Join(base, line)
	}
	c, err := Canonical(line)
	if err != nil {
		return "", false
	}
	return c, true
}

// gitAround returns the repository around cwd, if it counts (see
// gitDoubt), and otherwise why not.
func (t *trust) gitAround(cwd string) (GitLayout, string, bool) {
	l, ok := FindGit(cwd)
	if !ok {
		return GitLayout{}, "", false
	}
	if why := t.gitDoubt(l, cwd); why != "" {
		return l, why, false
	}
	return l, "", true
}

// gitDoubt says why the repository l found from cwd counts for nothing
// ("" when it counts): its top may be written by other users
// (trust.safeTop), or it lies above cwd under a shared root, where any
// run of any user could have made the .git.
func (t *trust) gitDoubt(l GitLayout, cwd string) string {
	switch {
	case !t.safeTop(l.WorkTree):
		return fmt.Sprintf("the .git in %q does not count: other users may write that directory", l.WorkTree)
	case l.WorkTree != cwd && t.shared.under(l.WorkTree):
		return fmt.Sprintf("the .git in %q does not count: it lies above the working directory under a shared root, where any run could have made it", l.WorkTree)
	}
	return ""
}

// gitRoots returns the git directories that must be writable for git to work
// from cwd but that do not lie under cwd: the common dir of a linked worktree,
// or the .git of a repository whose top is above cwd. Only a layout that
// counts (gitAround) and is Verified widens anything; the roots it would
// have given are returned as omitted, with the reason.
func (t *trust) gitRoots(cwd string) ([]Path, []Omitted) {
	l, why, ok := t.gitAround(cwd)
	if ok && !l.Verified {
		why = fmt.Sprintf("the .git file in %q does not count: git's back-pointers do not name it (a worktree's <common>/worktrees/<id>/gitdir, a submodule's core.worktree), and a .git file alone may have been written by any run there", l.WorkTree)
	}
	roots := layoutRoots(l, cwd)
	if why == "" {
		return roots, nil
	}
	var out []Omitted
	for _, r := range roots {
		out = append(out, Omitted{r.Path, r.Source, why})
	}
	return nil, out
}

// layoutRoots are the directories of l that lie outside cwd.
func layoutRoots(l GitLayout, cwd string) []Path {
	if l.GitDir == "" {
		return nil
	}
	if l.CommonDir == l.GitDir {
		if Within(l.GitDir, cwd) {
			return nil
		}
		return []Path{{Path: l.GitDir, Source: SourceGitDir}}
	}
	var out []Path
	if !Within(l.CommonDir, cwd) {
		out = append(out, Path{Path: l.CommonDir, Source: SourceWorktree})
	}
	// A linked worktree's own dir normally lives in the common dir; a
	// submodule-style gitdir elsewhere needs its own root.
	if !Within(l.GitDir, cwd) && !Within(l.GitDir, l.CommonDir) {
		out = append(out, Path{Path: l.GitDir, Source: SourceGitDir})
	}
	return out
}
