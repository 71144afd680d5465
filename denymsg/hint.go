package denymsg

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

const prefix = "zsandbox: hint: "

// Hint renders findings as hint lines (without trailing newline) for a
// command that ended with e. A command that succeeded gets none. A failed one
// gets at most one line per kind, in a fixed order: hidden, protected, write,
// network, unix, seccomp. A kill by SIGSYS (signal 31, or exit status 159 passed up
// by a shell) gets the seccomp line even when nothing was printed.
func Hint(findings []Finding, f Facts, e Exit) []string {
	if !e.failed() {
		return nil
	}
	var lines []string
	add := func(s string) {
		if s != "" {
			lines = append(lines, prefix+s)
		}
	}
	add(hiddenHint(entries(findings, KindHidden)))
	add(protectedHint(entries(findings, KindProtected), f.Purpose))
	add(writeHint(findings, f.Writable))
	if has(findings, KindNetwork) && f.UnixDeny {
		add("network is off (--network deny); rerun with --network allow to allow it (a unix socket needs --allow-unix-sockets)")
	} else if has(findings, KindNetwork) {
		add("network is off (--network deny); rerun with --network allow to allow it")
	}
	if has(findings, KindUnix) {
		add("unix sockets are off (the host's daemons, e.g. /run/docker.sock, stay unreachable); add --allow-unix-sockets to allow them")
	}
	add(seccompHint(has(findings, KindSeccomp), e))
	return lines
}

func has(fs []Finding, k Kind) bool {
	for _, f := range fs {
		if f.Kind == k {
			return true
		}
	}
	return false
}

// entries returns the distinct Facts entries of the findings of kind k.
func entries(fs []Finding, k Kind) []string {
	var out []string
	for _, f := range fs {
		if f.Kind == k && f.Entry != "" && !contains(out, f.Entry) {
			out = append(out, f.Entry)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func hiddenHint(es []string) string {
	if len(es) == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s hidden by the sandbox on purpose (credentials)", and(es, 4), isAre(es))
}

// protectedHint names the protected entries, each with what it is for
// when known, and how to make one writable.
func protectedHint(es []string, purpose map[string]string) string {
	const why = "read-only inside the sandbox so code planted there cannot run later outside it"
	switch len(es) {
	case 0:
		return ""
	case 1:
		if p := purpose[es[0]]; p != "" {
			return show(es[0]) + " is protected (" + show(p) + "; " + why + "); name it with --writable PATH to make it writable"
		}
		return show(es[0]) + " is protected (" + why + "); name it with --writable PATH to make it writable"
	}
	named := make([]string, len(es))
	for i, e := range es {
		named[i] = e
		if p := purpose[e]; p != "" {
			named[i] = e + " (" + p + ")"
		}
	}
	return and(named, 4) + " are protected (" + why + "); name one with --writable PATH to make it writable"
}

// writeHint names the first denied path, if any message named one, and the
// writable roots.
func writeHint(fs []Finding, roots []string) string {
	var paths []string
	seen := false
	for _, f := range fs {
		if f.Kind == KindWrite {
			seen = true
			if f.Path != "" {
				paths = append(paths, f.Path)
			}
		}
	}
	if !seen {
		return ""
	}
	var b strings.Builder
	switch len(paths) {
	case 0:
	case 1:
		b.WriteString(show(paths[0]) + " is outside the writable roots; ")
	default:
		b.WriteString(show(paths[0]) + " and other paths are outside the writable roots; ")
	}
	if len(roots) == 0 {
		b.WriteString("no path is writable; add --writable PATH (or ZSANDBOX_WRITABLE) to allow writes")
		return b.String()
	}
	b.WriteString("writes are allowed only under " + commas(roots, 8))
	b.WriteString("; add --writable PATH (or ZSANDBOX_WRITABLE) to allow more")
	return b.String()
}

func seccompHint(seen bool, e Exit) string {
	switch {
	case e.Signal == sigsys:
		return "the command was killed by the sandbox's system-call filter (SIGSYS)"
	case e.Code == 128+sigsys || seen:
		return "a process was killed by the sandbox's system-call filter (SIGSYS)"
	}
	return ""
}

func isAre(list []string) string {
	if len(list) == 1 {
		return "is"
	}
	return "are"
}

// commas lists up to max entries: "a, b, c" or "a, b, c and 2 more".
func commas(list []string, max int) string {
	shown := make([]string, 0, min(len(list), max))
	for _, s := range list[:min(len(list), max)] {
		shown = append(shown, show(s))
	}
	out := strings.Join(shown, ", ")
	if n := len(list) - len(shown); n > 0 {
		out += fmt.Sprintf(" and %d more", n)
	}
	return out
}

// and lists up to max entries: "a", "a and b", "a, b and c", "a, b and 3 more".
func and(list []string, max int) string {
	if len(list) > max {
		return commas(list, max-1)
	}
	if len(list) == 1 {
		return show(list[0])
	}
	return commas(list[:len(list)-1], max) + " and " + show(list[len(list)-1])
}

// maxShown caps a path in a hint; longer ones keep their start and end.
const maxShown = 200

// show makes a path safe to print in a one-line hint: shortened to maxShown
// bytes, and Go-quoted when it holds anything but printable characters (a
// newline, an escape sequence, invalid UTF-8, a bidi override).
func show(p string) string {
	if len(p) > maxShown {
		p = headRunes(p, maxShown/2-2) + "..." + tailRunes(p, maxShown/2-2)
	}
	for _, r := range p {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}

// headRunes returns the longest prefix of s of at most n bytes that ends on a
// rune boundary.
func headRunes(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:min(n, len(s))]
}

// tailRunes returns the longest suffix of s of at most n bytes that starts on
// a rune boundary.
func tailRunes(s string, n int) string {
	t := max(len(s)-n, 0)
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	return s[t:]
}
