package denymsg

import (
	"bytes"
	"io"
	"slices"
	"sync"
)

// MaxLine is how much of one line is analysed. The rest of a longer line is
// skipped, never buffered.
const MaxLine = 4096

// maxPerKind caps the findings kept per kind, so memory stays bounded however
// many denials the command prints.
const maxPerKind = 8

// Recognizer collects the denials seen on a command's output streams.
type Recognizer struct {
	facts Facts

	mu       sync.Mutex
	findings []Finding
	streams  []*stream
}

// New returns a Recognizer for a command run under f.
func New(f Facts) *Recognizer {
	return &Recognizer{facts: f.clean()}
}

// Stream returns a writer for one output stream of the command (stdout or
// stderr). Each stream keeps its own partial line, so the two pumps may write
// at the same time. Write scans a chunk, never fails, and never retains it.
func (r *Recognizer) Stream() io.Writer {
	s := &stream{r: r}
	r.mu.Lock()
	r.streams = append(r.streams, s)
	r.mu.Unlock()
	return s
}

// Findings returns what has been recognised so far, in the order first seen,
// after analysing any unterminated last line of each stream.
func (r *Recognizer) Findings() []Finding {
	r.mu.Lock()
	streams := slices.Clone(r.streams)
	r.mu.Unlock()
	for _, s := range streams {
		s.flush()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.findings)
}

// Hints returns the hint lines for a command that ended with e (see Hint).
// Call it once the streams are drained.
func (r *Recognizer) Hints(e Exit) []string {
	return Hint(r.Findings(), r.facts, e)
}

func (r *Recognizer) add(f Finding) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, g := range r.findings {
		if g.Kind != f.Kind {
			continue
		}
		if same(f, g) {
			return
		}
		n++
	}
	if n < maxPerKind {
		r.findings = append(r.findings, f)
	}
}

// same reports findings a hint would not tell apart.
func same(a, b Finding) bool {
	switch a.Kind {
	case KindHidden, KindProtected:
		return a.Entry == b.Entry
	case KindWrite:
		return a.Path == b.Path
	}
	return true
}

// stream scans one output stream line by line. Complete lines in a chunk are
// never copied: the prefilter runs over the chunk in place. Only the
// unterminated tail of a chunk is kept, up to MaxLine bytes.
type stream struct {
	r *Recognizer

	mu      sync.Mutex
	tail    []byte // the start of the unterminated line, at most MaxLine bytes
	pending bool   // an unterminated line is in progress
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scan(p)
	return len(p), nil
}

func (s *stream) scan(p []byte) {
	if s.pending {
		i := indexEOL(p)
		if i < 0 {
			s.hold(p)
			return
		}
		s.hold(p[:i])
		s.endLine()
		p = p[i+1:]
	}
	if k := lastEOL(p); k >= 0 {
		s.lines(p[:k+1])
		p = p[k+1:]
	}
	if len(p) > 0 {
		s.hold(p)
	}
}

// lines analyses the lines of body, which ends with a line terminator, that
// the prefilter flags.
func (s *stream) lines(body []byte) {
	for len(body) > 0 {
		i := keys.index(body)
		if i < 0 {
			return
		}
		start := lastEOL(body[:i]) + 1
		end := i + indexEOL(body[i:])
		s.analyse(body[start:min(end, start+MaxLine)])
		body = body[end+1:]
	}
}

func (s *stream) hold(p []byte) {
	s.pending = true
	if room := MaxLine - len(s.tail); room > 0 {
		if s.tail == nil {
			s.tail = make([]byte, 0, MaxLine)
		}
		s.tail = append(s.tail, p[:min(len(p), room)]...)
	}
}

func (s *stream) endLine() {
	s.analyse(s.tail)
	s.tail = s.tail[:0]
	s.pending = false
}

func (s *stream) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending {
		s.endLine()
	}
}

func (s *stream) analyse(line []byte) {
	if keys.index(line) < 0 {
		return
	}
	if f, ok := Classify(line, s.r.facts); ok {
		s.r.add(f)
	}
}

// Lines end at '\n' or '\r': a progress bar redrawn with '\r' is many short
// lines, not one long one that would push a later message past MaxLine.
func indexEOL(p []byte) int {
	i := bytes.IndexByte(p, '\n')
	lim := i
	if i < 0 {
		lim = len(p)
	}
	if j := bytes.IndexByte(p[:lim], '\r'); j >= 0 {
		return j
	}
	return i
}

func lastEOL(p []byte) int {
	i := bytes.LastIndexByte(p, '\n')
	if j := bytes.LastIndexByte(p[i+1:], '\r'); j >= 0 {
		return i + 1 + j
	}
	return i
}
