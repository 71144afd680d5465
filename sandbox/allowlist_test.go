//go:build linux || darwin

package sandbox

import (
	"slices"
	"testing"
)

// A refused name with an escape or a newline is quoted in the hint line;
// ordinary targets are left alone.
func TestPrintableTargets(t *testing.T) {
	got := printable([]string{"pypi.org:443", "\x1b]0;owned\x07:443", "a\nzsandbox: hint: x:80", "é.test:80"})
	want := []string{"pypi.org:443", `"\x1b]0;owned\a:443"`, `"a\nzsandbox: hint: x:80"`, `"\u00e9.test:80"`}
	if !slices.Equal(got, want) {
		t.Errorf("printable: got %q, want %q", got, want)
	}
}
