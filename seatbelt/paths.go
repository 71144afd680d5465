package seatbelt

import (
	"fmt"
	"path"
	"strings"

	"github.com/zsandbox/zsandbox/policy"
)

// privateTops are the top-level macOS directories that are symlinks into
// /private. Seatbelt matches the path the kernel resolved, so a rule naming
// /tmp/x would never match; the rule must name /private/tmp/x.
var privateTops = []string{"/tmp", "/var", "/etc"}

// Canonicalize rewrites an absolute path the way macOS resolves it:
// /tmp, /var and /etc (and everything beneath them) move under /private.
// It compares whole components, so /tmpfoo is left alone, and cleans the
// path first. A relative path is returned unchanged.
//
// The policy already resolved symlinks on the host it ran on; Canonicalize
// still applies the rewrite so a profile rendered elsewhere (a golden test
// on Linux, a policy written by hand) names what the macOS kernel reports.
func Canonicalize(p string) string {
	if !strings.HasPrefix(p, "/") {
		return p
	}
	p = path.Clean(p)
	for _, top := range privateTops {
		if p == top || strings.HasPrefix(p, top+"/") {
			return "/private" + p
		}
	}
	return p
}

// sets holds the rendered path lists, canonical and without duplicates.
type sets struct {
	roots     []string // writable roots
	protected []string // protected paths, plus their non-canonical forms
	ancestors []string // directories above hidden/protected paths, inside roots
	hidden    []string // hidden paths, plus their non-canonical forms
}

// collect validates and canonicalises every path the profile needs.
// It runs in time linear in the total length of the paths: every list is
// de-duplicated through a set, and ancestors looks each directory up in the
// set of roots instead of scanning the roots.
func collect(p *policy.Policy, protected []string) (sets, error) {
	roots := newUniq(len(p.Writable))
	for _, r := range p.Writable {
		c, err := canonical("writable root", r.Path)
		if err != nil {
			return sets{}, err
		}
		roots.add(c)
	}
	guarded := make([]string, 0, len(p.Hidden)+len(protected)) // canonical hidden and protected paths
	hidden := newUniq(len(p.Hidden))
	for _, h := range p.Hidden {
		c, err := canonical("hidden path", h.Path)
		if err != nil {
			return sets{}, err
		}
		hidden.addForms(c, h.Path)
		guarded = append(guarded, c)
	}
	prot := newUniq(len(protected))
	for _, raw := range protected {
		c, err := canonical("protected path", raw)
		if err != nil {
			return sets{}, err
		}
		prot.addForms(c, raw)
		guarded = append(guarded, c)
	}
	anc := newUniq(0)
	for _, g := range guarded {
		ancestors(g, roots.seen, anc)
	}
	return sets{roots: roots.list, protected: prot.list, ancestors: anc.list, hidden: hidden.list}, nil
}

// canonical checks that raw can be a profile parameter and canonicalises it.
func canonical(what, raw string) (string, error) {
	switch {
	case !strings.HasPrefix(raw, "/"):
		return "", fmt.Errorf("%s %q: not an absolute path", what, raw)
	case strings.ContainsRune(raw, 0):
		return "", fmt.Errorf("%s %q: contains a NUL byte", what, raw)
	}
	return Canonicalize(raw), nil
}

// addForms adds the canonical path and, when it differs, the cleaned path as
// written. Seatbelt matches resolved paths, so the second form is belt and
// braces for a deny, never needed for an allow.
func (u *uniq) addForms(canon, raw string) {
	u.add(canon)
	if written := path.Clean(raw); written != canon {
		u.add(written)
	}
}

// ancestors adds to out the directories strictly above p that lie inside a
// writable root, nearest first: from p's parent up to and including the
// outermost root containing p. Renaming or removing any of them would carry
// p away from the rule that names it.
//
// p and every root are clean absolute paths, so a directory d lies within a
// root exactly when d or one of its ancestors is a root (policy.Within's
// whole-component prefix test). Walking up from p's parent, that holds from
// the parent up to the outermost root on the way and for no directory above
// it, so one walk that looks each directory up in roots finds the range.
func ancestors(p string, roots map[string]struct{}, out *uniq) {
	if p == "/" {
		return
	}
	// Find the outermost root above p: the last directory on the walk up
	// that is itself a root.
	outer := ""
	for d := parent(p); ; d = parent(d) {
		if _, ok := roots[d]; ok {
			outer = d
		}
		if d == "/" {
			break
		}
	}
	if outer == "" {
		return
	}
	for d := parent(p); ; d = parent(d) {
		out.add(d)
		if d == outer {
			return
		}
	}
}

// parent returns the directory above p, a clean absolute path other than
// "/", without allocating: path.Dir of a clean path, as a substring.
func parent(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// uniq is a list without duplicates in first-seen order, with a set of its
// members for constant-time look-up.
type uniq struct {
	list []string
	seen map[string]struct{}
}

func newUniq(n int) *uniq {
	return &uniq{list: make([]string, 0, n), seen: make(map[string]struct{}, n)}
}

// add appends v unless it is already in the list.
func (u *uniq) add(v string) {
	if _, ok := u.seen[v]; ok {
		return
	}
	u.seen[v] = struct{}{}
	u.list = append(u.list, v)
}
