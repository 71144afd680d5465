// Package profiles holds the data zsandbox enforces by default: the hidden
// credential paths, the protected paths inside writable roots and the seccomp
// profile. Keeping them as embedded files makes the defaults reviewable as data
// and lets tests and renderers share one source.
package profiles

import (
	_ "embed"
	"strings"
)

//go:embed hidden.txt
var hiddenText string

//go:embed protected-home.txt
var protectedHomeText string

// Hidden returns the default hidden paths, home-relative with a leading "~/".
func Hidden() []string { return lines(hiddenText) }

// ProtectedInHome returns the home-relative files kept read-only when the
// home directory is writable.
func ProtectedInHome() []string { return lines(protectedHomeText) }

// lines returns the non-empty, non-comment lines of an embedded list.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}
