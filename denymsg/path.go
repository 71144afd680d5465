package denymsg

import (
	"bytes"
	"unicode/utf8"
)

// pathNear returns the path a message names around its signature at
// line[i:j], as printed (possibly relative). Tools put it in one of two places:
//
//	after:  python  "Read-only file system: '/etc/x'"
//	        node    "read-only file system, open '/etc/x'"
//	        rust    "Read-only file system (os error 30) at path \"/etc/x\""
//	        zsh     "read-only file system: /etc/x"
//	before: most    "touch: cannot touch '/etc/x': Read-only file system"
//	                "open /etc/x: read-only file system"
//	                "wget: Cannot read /home/u/.netrc (Permission denied)."
func pathNear(line []byte, i, j int) (string, bool) {
	if p, ok := pathAfter(line[j:]); ok {
		return p, true
	}
	return pathBefore(line[:i])
}

func pathAfter(rest []byte) (string, bool) {
	if bytes.HasPrefix(rest, []byte(" (os error ")) {
		if k := bytes.IndexByte(rest, ')'); k >= 0 {
			rest = rest[k+1:]
		}
		if r, ok := bytes.CutPrefix(rest, []byte(" at path ")); ok {
			return unquoteAt(r, 0)
		}
		return "", false
	}
	if r, ok := bytes.CutPrefix(rest, []byte(": ")); ok {
		if p, ok := unquoteAt(r, 0); ok {
			return p, true
		}
		if looksLikePath(r) || isBareName(r) {
			return string(r), true
		}
		return "", false
	}
	if r, ok := bytes.CutPrefix(rest, []byte(", ")); ok {
		k := 0
		for k < len(r) && isLetter(r[k]) {
			k++
		}
		if k > 0 && k < len(r) && r[k] == ' ' {
			return unquoteAt(r, k+1)
		}
	}
	return "", false
}

func looksLikePath(b []byte) bool {
	return bytes.HasPrefix(b, []byte("/")) || bytes.HasPrefix(b, []byte("./")) ||
		bytes.HasPrefix(b, []byte("../"))
}

// pathBefore finds the path in the text before a signature. The segment that
// names it is the one after the last ": " (or "; ").
func pathBefore(b []byte) (string, bool) {
	b = bytes.TrimRight(b, " \t:(")
	seg, first := b, true
	if k := max(bytes.LastIndex(b, []byte(": ")), bytes.LastIndex(b, []byte("; "))); k >= 0 {
		seg, first = b[k+2:], false
	}
	if p, ok := firstQuoted(seg); ok {
		return p, true
	}
	if p, ok := slashRun(seg); ok {
		return p, true
	}
	if p, ok := lastQuotedPath(b); ok {
		return p, true // mv: inter-device move failed: 'a' to 'b'; unable to remove target
	}
	if p, ok := verbObject(seg); ok {
		return p, true // dash: cannot create zs-x
	}
	if !first && isBareName(seg) {
		return string(seg), true // bash: line 1: zs-x
	}
	return "", false
}

// slashRun returns the text from the first word holding a '/' to the end of
// seg: paths may hold spaces ("cannot create /etc/a b"). A second word that
// starts with '/' ends it (Go: "rename /a /b").
func slashRun(seg []byte) (string, bool) {
	for s := 0; s < len(seg); {
		end := bytes.IndexByte(seg[s:], ' ')
		if end < 0 {
			end = len(seg) - s
		}
		word := seg[s : s+end]
		if bytes.IndexByte(word, '/') >= 0 && !bytes.Contains(word, []byte("://")) {
			run := seg[s:]
			if k := bytes.Index(run, []byte(" /")); k > 0 {
				run = run[:k]
			}
			return string(run), true
		}
		s += end + 1
	}
	return "", false
}

var verbs = []string{
	"cannot create ", "can't create ", "cannot open ", "can't open ", "cannot touch ",
	"cannot remove ", "cannot access ", "cannot stat ", "could not create ", "unable to create ",
}

// verbObject returns the object of "cannot create NAME" and its kin.
func verbObject(seg []byte) (string, bool) {
	for _, v := range verbs {
		if len(seg) > len(v) && bytes.EqualFold(seg[:len(v)], []byte(v)) {
			return string(seg[len(v):]), true
		}
	}
	return "", false
}

// isBareName reports a single word that may be a file name, not an errno name
// (EACCES) or a bracketed code ([Errno 13]).
func isBareName(seg []byte) bool {
	if len(seg) == 0 || bytes.ContainsAny(seg, " \t[]") {
		return false
	}
	return !isErrnoName(seg)
}

func isErrnoName(w []byte) bool {
	if len(w) < 2 || w[0] != 'E' {
		return false
	}
	for _, c := range w[1:] {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// firstQuoted returns the first quoted string in seg.
func firstQuoted(seg []byte) (string, bool) {
	for k := 0; k < len(seg); k++ {
		if isOpening(seg, k) {
			return unquoteAt(seg, k)
		}
	}
	return "", false
}

// lastQuotedPath returns the last quoted string in b that starts like a path.
func lastQuotedPath(b []byte) (string, bool) {
	found := ""
	var unclosed [8]bool // quote pairs with no closer left: later openings fail too
	for k := 0; k < len(b); k++ {
		pair, _ := closer(b[k:])
		if !isOpening(b, k) || unclosed[pair] {
			continue
		}
		p, end, ok := unquote(b, k)
		if !ok {
			unclosed[pair] = true // keeps the scan linear on hostile output
			continue
		}
		if looksLikePath([]byte(p)) {
			found = p
		}
		k = end - 1
	}
	return found, found != ""
}

// isOpening reports a quote that opens a string at b[k]: an apostrophe inside
// a word ("can't") does not.
func isOpening(b []byte, k int) bool {
	if _, ok := closer(b[k:]); !ok {
		return false
	}
	return b[k] != '\'' || k == 0 || !isLetter(b[k-1])
}

// quotePairs are the quotes tools print paths in: ASCII, GNU's old `x', and
// the UTF-8 quotes coreutils uses in UTF-8 locales.
var quotePairs = []struct {
	open  string
	close []string
}{
	{"'", []string{"'"}}, {`"`, []string{`"`}}, {"`", []string{"`", "'"}},
	{"\u2018", []string{"\u2019"}}, {"\u201c", []string{"\u201d"}},
}

func closer(b []byte) (pair int, ok bool) {
	for i, q := range quotePairs {
		if bytes.HasPrefix(b, []byte(q.open)) {
			return i, true
		}
	}
	return 0, false
}

func unquoteAt(b []byte, k int) (string, bool) {
	p, _, ok := unquote(b, k)
	return p, ok
}

// unquote reads the quoted string opening at b[k] and returns it with the
// index after it. Adjacent shell-quoted pieces are joined, as coreutils
// prints awkward names:
//
//	'/etc/a'$'\n''b'   is "/etc/a\nb"
//	'a'\''b'          is "a'b"
func unquote(b []byte, k int) (string, int, bool) {
	piece, k, ok := quotedPiece(b, k)
	if !ok {
		return "", k, false
	}
	out := []byte(piece)
	for k < len(b) {
		var next int
		switch {
		case bytes.HasPrefix(b[k:], []byte("$'")):
			piece, next, ok = ansiC(b, k+2)
		case bytes.HasPrefix(b[k:], []byte(`\'`)):
			piece, next, ok = "'", k+2, true
		case b[k] == '\'' || b[k] == '"':
			piece, next, ok = quotedPiece(b, k)
		default:
			ok = false
		}
		if !ok {
			break
		}
		out = append(out, piece...)
		k = next
	}
	return string(out), k, true
}

func quotedPiece(b []byte, k int) (string, int, bool) {
	pair, ok := closer(b[k:])
	if !ok {
		return "", k, false
	}
	q := quotePairs[pair]
	start := k + len(q.open)
	for e := start; e < len(b); {
		for _, c := range q.close {
			if bytes.HasPrefix(b[e:], []byte(c)) {
				return string(b[start:e]), e + len(c), true
			}
		}
		_, size := utf8.DecodeRune(b[e:])
		e += size
	}
	return "", k, false
}

// ansiC decodes the body of a $'…' piece starting at b[k].
func ansiC(b []byte, k int) (string, int, bool) {
	var out []byte
	for k < len(b) {
		c := b[k]
		switch {
		case c == '\'':
			return string(out), k + 1, true
		case c == '\\' && k+1 < len(b):
			r, n := escape(b[k+1:])
			out = append(out, r...)
			k += 1 + n
		default:
			out = append(out, c)
			k++
		}
	}
	return "", k, false
}

var simpleEscapes = map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11}

// escape decodes one backslash escape (the part after the backslash).
func escape(b []byte) ([]byte, int) {
	if c, ok := simpleEscapes[b[0]]; ok {
		return []byte{c}, 1
	}
	if b[0] >= '0' && b[0] <= '7' {
		v, n := 0, 0
		for n < 3 && n < len(b) && b[n] >= '0' && b[n] <= '7' {
			v = v*8 + int(b[n]-'0')
			n++
		}
		return []byte{byte(v)}, n
	}
	return []byte{b[0]}, 1 // \\ \' \" and anything else stand for themselves
}
