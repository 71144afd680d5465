package exit

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/zsandbox/zsandbox/policy"
)

type hinted struct{}

func (hinted) Error() string { return "landlock: no" }
func (hinted) Hint() string  { return "use --landlock off" }

// TestPrintAndCode: each kind of failure prints its lines and maps to its
// status, through wrapping too.
func TestPrintAndCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int
		out  string
	}{
		{"nil", nil, 0, ""},
		{"usage", Usagef("--x %q: bad", "y"), 2, "zsandbox: error: --x \"y\": bad\n"},
		{"not run with hint", NotRunErr(fmt.Errorf("wrapped: %w", hinted{})), 127,
			"zsandbox: error: wrapped: landlock: no; the command did not run\nzsandbox: hint: use --landlock off\n"},
		{"command status", Status(42), 42, ""},
		{"unsafe", &policy.UnsafeError{Msg: "m", Hint: "h"}, 127, "zsandbox: error: m; the command did not run\nzsandbox: hint: h\n"},
		{"other", errors.New("boom"), 127, "zsandbox: error: boom\n"},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		Print(&b, tc.err)
		if b.String() != tc.out {
			t.Errorf("Print(%s) = %q, want %q", tc.name, b.String(), tc.out)
		}
		if got := Code(tc.err); got != tc.code {
			t.Errorf("Code(%s) = %d, want %d", tc.name, got, tc.code)
		}
	}
}
