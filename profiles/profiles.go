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

//go:embed protected-project.txt
var protectedProjectText string

//go:embed protected-git.txt
var protectedGitText string

// Hidden returns the default hidden paths, home-relative with a leading "~/".
func Hidden() []string { return lines(hiddenText) }

// Entry is one protected path of a list: where it is, whether it is a
// directory and what it is for.
type Entry struct {
	// Path is relative to the list's base; the home list's entries start
	// with "~/", "$XDG_CONFIG_HOME/" or "$ZDOTDIR/".
	Path string
	// Dir marks a directory (a trailing "/" in the list).
	Dir bool
	// Why says what the path is for: hints and explain print it.
	Why string
}

// ProtectedInHome returns the start-up files kept read-only when they lie
// inside a writable root.
func ProtectedInHome() []Entry { return entries(protectedHomeText) }

// ProtectedInProject returns the names kept read-only at the top of a
// project (the cwd, a repository's work tree).
func ProtectedInProject() []Entry { return entries(protectedProjectText) }

// ProtectedInGitDir returns the names kept read-only in a git directory.
func ProtectedInGitDir() []Entry { return entries(protectedGitText) }

// entries parses "PATH  # why" lines.
func entries(text string) []Entry {
	var out []Entry
	for _, l := range lines(text) {
		path, why, _ := strings.Cut(l, "#")
		path = strings.TrimSpace(path)
		e := Entry{Path: strings.TrimSuffix(path, "/"), Dir: strings.HasSuffix(path, "/"), Why: strings.TrimSpace(why)}
		out = append(out, e)
	}
	return out
}

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
