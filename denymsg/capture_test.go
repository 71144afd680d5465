package denymsg

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden hints in testdata/captures")

// A capture is the real output of a real tool that ran into the sandbox,
// recorded by testdata/capture.sh.
type capture struct {
	file    string
	name    string
	sandbox string   // deny, allow, seccomp, sigsys
	exit    int      // exit status of the sandbox
	want    []string // "KIND [PATH]" per distinct finding; PATH may end in *
	output  []byte
	hints   []string // golden hint lines; nil when the file has none yet
}

const (
	outputMark = "-- output --\n"
	hintsMark  = "-- hints --\n"
	noHints    = "(none)"
)

// captureFacts are the facts of the sandbox capture.sh builds.
func captureFacts(c capture) Facts {
	return Facts{
		Writable:    []string{"/home/u/proj", "/tmp", "/var/tmp"},
		Hidden:      []string{"/home/u/.ssh", "/home/u/.aws", "/home/u/.netrc", "/home/u/proj/secrets"},
		Protected:   []string{"/home/u/proj/.git/hooks", "/home/u/proj/.git/config"},
		NetworkDeny: c.sandbox != "allow" && c.sandbox != "unix-allow",
		UnixDeny:    strings.HasPrefix(c.sandbox, "unix-"),
		Cwd:         "/home/u/proj",
	}
}

func loadCaptures(t *testing.T) []capture {
	t.Helper()
	files, err := filepath.Glob("testdata/captures/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures in testdata/captures: %v", err)
	}
	var cs []capture
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseCapture(file, data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		cs = append(cs, c)
	}
	return cs
}

func parseCapture(file string, data []byte) (capture, error) {
	c := capture{file: file, name: strings.TrimSuffix(filepath.Base(file), ".txtar")}
	head, rest, ok := bytes.Cut(data, []byte(outputMark))
	if !ok {
		return c, errorString("no " + strings.TrimSpace(outputMark) + " section")
	}
	c.output = rest
	if k := bytes.LastIndex(rest, []byte("\n"+hintsMark)); k >= 0 {
		c.output = rest[:k+1]
		c.hints = []string{}
		for _, l := range strings.Split(strings.TrimSuffix(string(rest[k+1+len(hintsMark):]), "\n"), "\n") {
			if l != noHints {
				c.hints = append(c.hints, l)
			}
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(head)), "\n") {
		key, value, _ := strings.Cut(line, ": ")
		switch key {
		case "sandbox":
			c.sandbox = value
		case "exit":
			n, err := strconv.Atoi(value)
			if err != nil {
				return c, err
			}
			c.exit = n
		case "want":
			if value != "none" {
				c.want = append(c.want, value)
			}
		}
	}
	return c, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

func describe(f Finding) string {
	if f.Path == "" {
		return f.Kind.String()
	}
	return f.Kind.String() + " " + f.Path
}

// matches reports whether a finding fits a want; a want ending in * matches a
// random suffix (temporary file names).
func matches(want, got string) bool {
	if p, ok := strings.CutSuffix(want, "*"); ok {
		return strings.HasPrefix(got, p)
	}
	return want == got
}

// TestCaptureFindings classifies every line of every capture and checks the
// distinct findings against the capture's want lines.
func TestCaptureFindings(t *testing.T) {
	for _, c := range loadCaptures(t) {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, line := range bytes.Split(c.output, []byte("\n")) {
				if f, ok := Classify(line, captureFacts(c)); ok && !slices.Contains(got, describe(f)) {
					got = append(got, describe(f))
				}
			}
			for _, g := range got {
				if !slices.ContainsFunc(c.want, func(w string) bool { return matches(w, g) }) {
					t.Errorf("unexpected finding %q (want %q)", g, c.want)
				}
			}
			for _, w := range c.want {
				if !slices.ContainsFunc(got, func(g string) bool { return matches(w, g) }) {
					t.Errorf("missing finding %q (got %q)", w, got)
				}
			}
		})
	}
}

// TestCaptureHints runs every capture through a Recognizer, in small chunks
// so lines split across writes, and compares the hints with the golden ones.
func TestCaptureHints(t *testing.T) {
	for _, c := range loadCaptures(t) {
		t.Run(c.name, func(t *testing.T) {
			r := New(captureFacts(c))
			w := r.Stream()
			for p := c.output; len(p) > 0; p = p[min(len(p), 7):] {
				w.Write(p[:min(len(p), 7)])
			}
			got := r.Hints(Exit{Code: c.exit})
			if strings.HasPrefix(c.name, "near-") && len(got) > 0 {
				t.Errorf("near miss %s got hints %q", c.name, got)
			}
			if len(c.want) > 0 && c.exit != 0 && len(got) == 0 {
				t.Errorf("denial %s got no hint", c.name)
			}
			if *update {
				writeGolden(t, c, got)
				return
			}
			if c.hints == nil {
				t.Fatalf("%s has no %q section; run go test -run TestCaptureHints -update", c.file, hintsMark)
			}
			if got == nil {
				got = []string{}
			}
			if diff := cmp.Diff(got, c.hints); diff != "" {
				t.Errorf("Hints(%s) mismatch (-got +want):\n%s", c.name, diff)
			}
		})
	}
}

func writeGolden(t *testing.T, c capture, hints []string) {
	data, err := os.ReadFile(c.file)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := bytes.Cut(data, []byte(outputMark))
	var b bytes.Buffer
	b.Write(head)
	b.WriteString(outputMark)
	b.Write(c.output)
	b.WriteString(hintsMark)
	if len(hints) == 0 {
		hints = []string{noHints}
	}
	b.WriteString(strings.Join(hints, "\n") + "\n")
	if err := os.WriteFile(c.file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCapturesNeverReadHidden checks the capture harness itself: the hidden
// files hold a canary, and no tool ever printed it.
func TestCapturesNeverReadHidden(t *testing.T) {
	for _, c := range loadCaptures(t) {
		if bytes.Contains(c.output, []byte("SECRET-CANARY")) {
			t.Errorf("%s: a hidden file was read inside the sandbox", c.name)
		}
	}
}
