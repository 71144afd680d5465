package seatbelt_test

// The s-expression reader of the SBPL checker (see sbpl_test.go).

import (
	"fmt"
	"strings"
)

// --- parsing -----------------------------------------------------------------

type nodeKind int

const (
	nList nodeKind = iota
	nString
	nRegex
	nSymbol
)

type node struct {
	kind  nodeKind
	text  string // string contents, regex source or symbol name
	items []*node
	line  int
}

// parseSBPL reads s-expressions: lists, "strings", #"regexes", symbols and
// ; comments. Anything else (quote, backquote, #t, vectors, |x|) is an error.
func parseSBPL(src string) ([]*node, error) {
	p := &parser{src: src, line: 1}
	var top []*node
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return top, nil
		}
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		top = append(top, n)
	}
}

type parser struct {
	src  string
	pos  int
	line int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", p.line, fmt.Sprintf(format, args...))
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == '\n':
			p.line++
			p.pos++
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case c == ';':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func (p *parser) expr() (*node, error) {
	c := p.src[p.pos]
	switch {
	case c == '(':
		return p.list()
	case c == ')':
		return nil, p.errorf("unbalanced )")
	case c == '"':
		s, err := p.str()
		return &node{kind: nString, text: s, line: p.line}, err
	case strings.HasPrefix(p.src[p.pos:], `#"`):
		p.pos++
		s, err := p.str()
		return &node{kind: nRegex, text: s, line: p.line}, err
	case isSymbolByte(c):
		start := p.pos
		for p.pos < len(p.src) && isSymbolByte(p.src[p.pos]) {
			p.pos++
		}
		return &node{kind: nSymbol, text: p.src[start:p.pos], line: p.line}, nil
	}
	return nil, p.errorf("unexpected %q", c)
}

func (p *parser) list() (*node, error) {
	n := &node{kind: nList, line: p.line}
	p.pos++ // (
	for {
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, fmt.Errorf("line %d: unbalanced (: list never closed", n.line)
		}
		if p.src[p.pos] == ')' {
			p.pos++
			return n, nil
		}
		item, err := p.expr()
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, item)
	}
}

// str reads a double-quoted string with Scheme escapes \" \\ \n \t.
func (p *parser) str() (string, error) {
	var b strings.Builder
	p.pos++ // opening quote
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		switch c {
		case '"':
			return b.String(), nil
		case '\n':
			p.line++
			b.WriteByte(c)
		case '\\':
			if p.pos >= len(p.src) {
				return "", p.errorf("string ends in a backslash")
			}
			e := p.src[p.pos]
			p.pos++
			switch e {
			case '"', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				return "", p.errorf("unknown escape \\%c", e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", p.errorf("string never closed")
}

func isSymbolByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("-*_.+!?<>=/:", c) >= 0
}
