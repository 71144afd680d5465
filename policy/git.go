package policy

import (
	"os"
	"path/filepath"
	"strings"
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

func readGit(top string) (GitLayout, bool) {
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return GitLayout{}, false
	}
	if fi.IsDir() {
		return GitLayout{WorkTree: top, GitDir: dotgit, CommonDir: dotgit}, true
	}
	if !fi.Mode().IsRegular() {
		return GitLayout{}, false
	}
	gitDir, ok := readPointer(dotgit)
	if !ok {
		return GitLayout{}, false
	}
	l := GitLayout{WorkTree: top, GitDir: gitDir, CommonDir: gitDir, PointerFile: dotgit}
	if common, ok := readRelative(filepath.Join(gitDir, "commondir"), gitDir, ""); ok {
		l.CommonDir = common
	}
	return l, true
}

// readPointer reads a ".git" file of the form "gitdir: PATH".
func readPointer(file string) (string, bool) {
	return readRelative(file, filepath.Dir(file), "gitdir:")
}

// readRelative reads a one-line path file (after an optional prefix) and
// resolves it against base; the result must be an existing directory.
func readRelative(file, base, prefix string) (string, bool) {
	b, err := os.ReadFile(file)
	if err != nil || len(b) > 4096 {
		return "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line, ok := strings.CutPrefix(line, prefix)
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
	if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
		return "", false
	}
	return c, true
}

// gitRoots returns the git directories that must be writable for git to work
// from cwd but that do not lie under cwd: the common dir of a linked worktree,
// or the .git of a repository whose top is above cwd.
func gitRoots(cwd string) []Path {
	l, ok := FindGit(cwd)
	if !ok {
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
