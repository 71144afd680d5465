package alone

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/zsandbox/zsandbox/landlock"
)

// ReadRules computes, for the Landlock-only backend, the read rules that
// grant read (and execute) on everything except the hidden paths. Landlock
// only allows, beneath a path, so "read / but not ~/.ssh" is spelled as: no
// rule on / or on any other ancestor of a hidden path (the "cut"
// directories), and a rule on every sibling met on the way down: /bin,
// /etc, ..., /home/other, ~/proj, ~/.bashrc. A hidden path never gets a
// rule, nor does anything beneath it.
//
// exists reports what is at a path without following a final symlink: ok is
// false for a path that is missing or is a symlink (a symlink needs no rule:
// the kernel checks what it points to). list returns the names in a
// directory. Hidden paths must be absolute and symlink-free (as the policy
// resolves them); a hidden path that does not exist still cuts its existing
// ancestors, so it stays unreadable if it appears later.
//
// What this costs: the cut directories can be traversed (Landlock does not
// restrict path lookup) but not listed (ls ~ fails), and entries created in
// them after the rules were made are unreadable. What it cannot see: a hard
// link or bind mount of a hidden file at a granted path shares the hidden
// file's inode, and a rule on it grants the hidden file too.
func ReadRules(hidden []string, exists func(path string) (isDir, ok bool), list func(dir string) []string) ([]landlock.PathRule, error) {
	hide := map[string]bool{}
	for _, h := range hidden {
		if !filepath.IsAbs(h) {
			return nil, fmt.Errorf("hidden path %q: not an absolute path", h)
		}
		hide[filepath.Clean(h)] = true
	}
	cut := cutDirs(hide, exists)
	var out []landlock.PathRule
	var grant func(p string, isDir bool)
	grant = func(p string, isDir bool) {
		switch {
		case hide[p]:
		case !cut[p]:
			a := landlock.ReadAccess
			if !isDir {
				a &= landlock.FileAccess
			}
			out = append(out, landlock.PathRule{Path: p, Access: a})
		default:
			names := list(p)
			sort.Strings(names)
			for _, n := range names {
				child := filepath.Join(p, n)
				if d, ok := exists(child); ok {
					grant(child, d)
				}
			}
		}
	}
	grant("/", true)
	return out, nil
}

// cutDirs are the existing directories above a hidden path, from / down,
// that are not themselves hidden or beneath a hidden path.
func cutDirs(hide map[string]bool, exists func(string) (bool, bool)) map[string]bool {
	cut := map[string]bool{}
	for h := range hide {
		for _, a := range ancestors(h) {
			if hide[a] {
				break // a hidden ancestor already covers h
			}
			if isDir, ok := exists(a); a != "/" && (!ok || !isDir) {
				break // nothing can exist below a missing path or a file
			}
			cut[a] = true
		}
	}
	return cut
}

// ancestors of a clean absolute path, from / down to its parent.
func ancestors(p string) []string {
	if p == "/" {
		return nil
	}
	out := []string{"/"}
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}
