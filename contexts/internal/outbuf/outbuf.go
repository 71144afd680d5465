// Package outbuf is the output of a background process: written once, read
// from the start by any number of readers, each blocking until more is
// written or the buffer is closed. It is what makes re-attaching to a
// process replay what it printed before.
package outbuf

import (
	"io"
	"sync"
)

// Buffer is an append-only byte log.
type Buffer struct {
	mu     sync.Mutex
	cond   *sync.Cond
	data   []byte
	closed bool
}

// New returns an empty, open Buffer.
func New() *Buffer {
	b := &Buffer{}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// Write appends p and wakes the readers.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	b.data = append(b.data, p...)
	b.mu.Unlock()
	b.cond.Broadcast()
	return len(p), nil
}

// Close marks the end: readers get io.EOF once they have read everything.
func (b *Buffer) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cond.Broadcast()
	return nil
}

// Bytes returns a copy of everything written so far.
func (b *Buffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.data...)
}

// Reader returns a reader from the start.
func (b *Buffer) Reader() io.Reader { return &reader{b: b} }

type reader struct {
	b   *Buffer
	off int
}

func (r *reader) Read(p []byte) (int, error) {
	b := r.b
	b.mu.Lock()
	defer b.mu.Unlock()
	for r.off >= len(b.data) && !b.closed {
		b.cond.Wait()
	}
	if r.off >= len(b.data) {
		return 0, io.EOF
	}
	n := copy(p, b.data[r.off:])
	r.off += n
	return n, nil
}
