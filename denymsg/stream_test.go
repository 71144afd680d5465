package denymsg

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = `go: downloading github.com/google/go-cmp v0.7.0
touch: cannot touch '/etc/zs-x': Read-only file system
ok  	github.com/zsandbox/zsandbox/policy	0.123s
cat: /home/u/.ssh/id_ed25519: Permission denied
curl: (6) Could not resolve host: example.com
rm: cannot remove '.git/config': Device or resource busy
cat: /etc/none: No such file or directory
Bad system call
`

// findings runs data through one stream, written in the given pieces.
func findings(f Facts, pieces ...[]byte) []Finding {
	r := New(f)
	w := r.Stream()
	for _, p := range pieces {
		w.Write(p)
	}
	return r.Findings()
}

func TestStreamSplitAnywhere(t *testing.T) {
	data := []byte(sample)
	want := findings(facts(), data)
	if len(want) != 5 {
		t.Fatalf("sample findings = %v, want 5", want)
	}
	for i := range data {
		got := findings(facts(), data[:i], data[i:])
		if diff := cmp.Diff(got, want); diff != "" {
			t.Errorf("split at %d mismatch (-got +want):\n%s", i, diff)
		}
	}
	var bytewise [][]byte
	for i := range data {
		bytewise = append(bytewise, data[i:i+1])
	}
	if diff := cmp.Diff(findings(facts(), bytewise...), want); diff != "" {
		t.Errorf("byte by byte mismatch (-got +want):\n%s", diff)
	}
}

func TestStreamLineEnds(t *testing.T) {
	tests := []struct {
		name, data string
		want       []Finding
	}{
		{"crlf", "touch: cannot touch '/etc/x': Read-only file system\r\nnext\r\n", []Finding{*write("/etc/x")}},
		{"progress redrawn with cr", strings.Repeat("\r[=====>   ] 45%", 500) + "\rcurl: (6) Could not resolve host: x\n", []Finding{*net}},
		{"unterminated last line", "ok\ntouch: cannot touch '/etc/x': Read-only file system", []Finding{*write("/etc/x")}},
		{"no terminator at all", "Bad system call", []Finding{*seccomp}},
		{"empty lines", "\n\n\r\n\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(findings(facts(), []byte(tt.data)), tt.want); diff != "" {
				t.Errorf("mismatch (-got +want):\n%s", diff)
			}
		})
	}
}

func TestStreamLongLines(t *testing.T) {
	denial := "touch: cannot touch '/etc/x': Read-only file system"
	long := bytes.Repeat([]byte("a"), 1<<20)
	t.Run("denial after a long line", func(t *testing.T) {
		data := append(append(bytes.Clone(long), '\n'), denial+"\n"...)
		want := []Finding{*write("/etc/x")}
		if diff := cmp.Diff(findings(facts(), data), want); diff != "" {
			t.Errorf("one write mismatch (-got +want):\n%s", diff)
		}
		if diff := cmp.Diff(findings(facts(), data[:1000], data[1000:len(long)+5], data[len(long)+5:]), want); diff != "" {
			t.Errorf("chunked mismatch (-got +want):\n%s", diff)
		}
	})
	t.Run("denial past MaxLine is not analysed", func(t *testing.T) {
		data := append(bytes.Clone(long[:MaxLine]), " "+denial+"\n"...)
		if got := findings(facts(), data); len(got) != 0 {
			t.Errorf("one write: got %v, want none", got)
		}
		if got := findings(facts(), data[:100], data[100:]); len(got) != 0 {
			t.Errorf("chunked: got %v, want none", got)
		}
	})
	t.Run("a partial line is never buffered past MaxLine", func(t *testing.T) {
		r := New(facts())
		s := r.Stream().(*stream)
		for range 64 {
			s.Write(long[:64<<10])
		}
		if cap(s.tail) > MaxLine {
			t.Errorf("tail grew to %d bytes, want at most %d", cap(s.tail), MaxLine)
		}
	})
}

func TestStreamDoesNotRetain(t *testing.T) {
	r := New(facts())
	w := r.Stream()
	p := []byte("touch: cannot touch '/etc/x")
	w.Write(p)
	copy(p, bytes.Repeat([]byte("z"), len(p)))
	w.Write([]byte("': Read-only file system\n"))
	if diff := cmp.Diff(r.Findings(), []Finding{*write("/etc/x")}); diff != "" {
		t.Errorf("mismatch (-got +want):\n%s", diff)
	}
}

func TestStreamBinary(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for range 200 {
		data := make([]byte, rng.Intn(20000))
		rng.Read(data)
		// Sprinkle signatures so the slow path sees garbage around them.
		for range 5 {
			s := signatures[rng.Intn(len(signatures))].text
			at := rng.Intn(len(data) + 1)
			data = append(data[:at:at], append([]byte(s), data[at:]...)...)
		}
		whole := findings(facts(), data)
		at := rng.Intn(len(data) + 1)
		if diff := cmp.Diff(findings(facts(), data[:at], data[at:]), whole); diff != "" {
			t.Fatalf("split at %d mismatch (-got +want):\n%s", at, diff)
		}
	}
}

// TestStreamConcurrent writes stdout and stderr from two goroutines, as the
// exec pumps do. Run with -race.
func TestStreamConcurrent(t *testing.T) {
	r := New(facts())
	var wg sync.WaitGroup
	for i, line := range []string{
		"touch: cannot touch '/etc/x': Read-only file system\n",
		"curl: (6) Could not resolve host: example.com\n",
	} {
		w := r.Stream()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 2000 {
				fmt.Fprintf(w, "line %d of stream %d\n", j, i)
				if j%100 == 0 {
					w.Write([]byte(line[:10]))
					w.Write([]byte(line[10:]))
				}
			}
		}()
	}
	wg.Wait()
	got := r.Hints(Exit{Code: 1})
	if len(got) != 2 {
		t.Errorf("Hints = %q, want a write and a network hint", got)
	}
}

func TestFindingsBounded(t *testing.T) {
	r := New(facts())
	w := r.Stream()
	for i := range 1000 {
		fmt.Fprintf(w, "touch: cannot touch '/etc/x%d': Read-only file system\n", i)
		fmt.Fprintf(w, "curl: (6) Could not resolve host: h%d\n", i)
	}
	got := r.Findings()
	if len(got) != maxPerKind+1 {
		t.Errorf("kept %d findings, want %d (write capped, network once)", len(got), maxPerKind+1)
	}
}

// TestPrefilter checks the hashed Wu–Manber tables against a plain search:
// the prefilter may never miss the first key.
func TestPrefilter(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	alphabet := []byte("aeiou rstnlEPRN:/'.-_\nBadsystemcall")
	for range 5000 {
		var b []byte
		for range rng.Intn(200) {
			if rng.Intn(20) == 0 {
				s := signatures[rng.Intn(len(signatures))].text
				b = append(b, s[:rng.Intn(len(s)+1)]...) // whole keys and fragments
				continue
			}
			b = append(b, alphabet[rng.Intn(len(alphabet))])
		}
		want := -1
		for _, s := range signatures {
			if i := bytes.Index(b, []byte(s.text)); i >= 0 && (want < 0 || i < want) {
				want = i
			}
		}
		if got := keys.index(b); got != want {
			t.Fatalf("index(%q) = %d, want %d", b, got, want)
		}
	}
}
