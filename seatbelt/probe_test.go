package seatbelt

import (
	"errors"
	"strings"
	"testing"
)

func TestProbeError(t *testing.T) {
	exit := errors.New("exit status 71")
	for _, tc := range []struct {
		name, out, reason, hint string
	}{
		{"nested sandbox", "sandbox-exec: sandbox_apply: Operation not permitted\n",
			"cannot apply a Seatbelt profile here (sandbox-exec: sandbox_apply: Operation not permitted)", "already inside a macOS sandbox"},
		{"profile error", "sandbox-exec: unbound variable: file-bogus\nmore\n",
			"sandbox-exec rejected the profile (sandbox-exec: unbound variable: file-bogus)", "zsandbox bug"},
		{"silent", "", "sandbox-exec rejected the profile (no message)", "zsandbox bug"},
		{"long", strings.Repeat("x", 400), "sandbox-exec rejected the profile (" + strings.Repeat("x", 300) + "...)", "zsandbox bug"},
	} {
		err := probeError([]byte(tc.out), exit)
		var se *SetupError
		if !errors.As(err, &se) || !errors.Is(err, exit) {
			t.Fatalf("%s: probeError = %#v, want a *SetupError wrapping the exit error", tc.name, err)
		}
		if se.Reason != tc.reason || !strings.Contains(se.Hint, tc.hint) {
			t.Errorf("%s: probeError = %q / hint %q, want %q / hint containing %q", tc.name, se.Reason, se.Hint, tc.reason, tc.hint)
		}
		if !strings.HasPrefix(err.Error(), "seatbelt: ") || !strings.HasSuffix(err.Error(), ": exit status 71") {
			t.Errorf("%s: Error() = %q", tc.name, err)
		}
	}
}
