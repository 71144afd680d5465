package denymsg

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/zsandbox/zsandbox/policy"
)

// FuzzStream feeds arbitrary output, split at an arbitrary point, and checks
// the invariants: no panic, findings do not depend on how the output was
// split, and every hint is one printable line starting with the prefix.
func FuzzStream(f *testing.F) {
	f.Add([]byte(sample), uint16(10), 1)
	f.Add([]byte("touch: cannot touch '/etc/a'$'\\n''b': Read-only file system\n"), uint16(3), 1)
	f.Add([]byte("\r\n\x00\xff'\"`‘“$'\\"), uint16(1), 159)
	files, _ := filepath.Glob("testdata/captures/*.txtar")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data, uint16(len(data)/2), 1)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16, code int) {
		at := int(split) % (len(data) + 1)
		whole := findings(facts(), data)
		if diff := cmp.Diff(findings(facts(), data[:at], data[at:]), whole); diff != "" {
			t.Fatalf("split at %d changes findings (-got +want):\n%s", at, diff)
		}
		for _, fd := range whole {
			checkFinding(t, fd, facts())
		}
		for _, line := range Hint(whole, facts(), Exit{Code: code}) {
			if !strings.HasPrefix(line, prefix) {
				t.Errorf("hint %q lacks the prefix", line)
			}
			for _, r := range line {
				if r == '\uFFFD' || !unicode.IsPrint(r) {
					t.Errorf("hint %q holds %U", line, r)
				}
			}
			if len(line) > 2000 {
				t.Errorf("hint is %d bytes long", len(line))
			}
		}
	})
}

// checkFinding checks that a path is absolute and clean, and that hidden and
// protected findings carry an entry of the facts (the only text their hints
// print).
func checkFinding(t *testing.T, fd Finding, f Facts) {
	t.Helper()
	if fd.Path != "" && (!strings.HasPrefix(fd.Path, "/") || path.Clean(fd.Path) != fd.Path) {
		t.Errorf("finding %+v: path not absolute and clean", fd)
	}
	switch fd.Kind {
	case KindHidden:
		if !slices.Contains(f.Hidden, fd.Entry) || !policy.Within(fd.Path, fd.Entry) {
			t.Errorf("hidden finding %+v: entry not a hidden path above it", fd)
		}
	case KindProtected:
		if !slices.Contains(f.Protected, fd.Entry) || !policy.Within(fd.Path, fd.Entry) {
			t.Errorf("protected finding %+v: entry not a protected path above it", fd)
		}
	}
}
