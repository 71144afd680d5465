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
func collect(p *policy.Policy, protected []string) (sets, error) {
	var s sets
	for _, r := range p.Writable {
		c, err := canonical("writable root", r.Path)
		if err != nil {
			return sets{}, err
		}
		s.roots = appendNew(s.roots, c)
	}
	var guarded []string // canonical hidden and protected paths
	for _, h := range p.Hidden {
		c, err := canonical("hidden path", h.Path)
		if err != nil {
			return sets{}, err
		}
		s.hidden = appendNew(s.hidden, forms(c, h.Path)...)
		guarded = append(guarded, c)
	}
	for _, raw := range protected {
		c, err := canonical("protected path", raw)
		if err != nil {
			return sets{}, err
		}
		s.protected = appendNew(s.protected, forms(c, raw)...)
		guarded = append(guarded, c)
	}
	for _, g := range guarded {
		s.ancestors = appendNew(s.ancestors, ancestors(g, s.roots)...)
	}
	return s, nil
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

// forms returns the canonical path and, when it differs, the cleaned path as
// written. Seatbelt matches resolved paths, so the second form is belt and
// braces for a deny, never needed for an allow.
func forms(canon, raw string) []string {
	if written := path.Clean(raw); written != canon {
		return []string{canon, written}
	}
	return []string{canon}
}

// ancestors returns the directories strictly above p that lie inside a
// writable root, nearest first: from p's parent up to and including the
// outermost root containing p. Renaming or removing any of them would carry
// p away from the rule that names it.
func ancestors(p string, roots []string) []string {
	if p == "/" {
		return nil
	}
	var out []string
	for d := path.Dir(p); ; d = path.Dir(d) {
		if policy.WithinAny(d, roots) {
			out = append(out, d)
		}
		if d == "/" {
			return out
		}
	}
}

// appendNew appends the values not yet in list, keeping first-seen order.
func appendNew(list []string, values ...string) []string {
	for _, v := range values {
		if !contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
