//go:build !darwin

package seatbelt_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/seatbelt"
)

// Off macOS nothing runs: a typed error the CLI maps to exit 127.
func TestExecUnsupported(t *testing.T) {
	code, err := seatbelt.Exec(seatbelt.Profile{}, []string{"true"}, nil, "/")
	var se *seatbelt.SetupError
	if code != 127 || !errors.As(err, &se) || !errors.Is(err, seatbelt.ErrUnsupported) {
		t.Fatalf("Exec = %d, %v; want 127 and a *SetupError wrapping ErrUnsupported", code, err)
	}
	if !strings.HasPrefix(err.Error(), "seatbelt: cannot run sandbox-exec on ") || se.Hint == "" {
		t.Errorf("Exec error = %q (hint %q)", err, se.Hint)
	}
	if err := seatbelt.Probe(seatbelt.Profile{}); !errors.Is(err, seatbelt.ErrUnsupported) {
		t.Errorf("Probe = %v, want ErrUnsupported", err)
	}
}
