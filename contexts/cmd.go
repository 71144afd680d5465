package contexts

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
)

// Argv is the command line cmd runs: Args as given, or sh -c Shell.
func (c Cmd) Argv() ([]string, error) {
	switch {
	case len(c.Args) > 0 && c.Shell != "":
		return nil, Errorf(ErrUsage, "command has both Args and Shell")
	case len(c.Args) > 0:
		return c.Args, nil
	case strings.TrimSpace(c.Shell) != "":
		return []string{"/bin/sh", "-c", c.Shell}, nil
	}
	return nil, Errorf(ErrUsage, "empty command")
}

// WithPassed returns env plus NAME=VALUE for each name in pass that the
// host's environment sets: how a context that does not inherit the host's
// environment (a container, a remote sandbox) honours pass-env.
func WithPassed(env, pass []string) []string {
	out := append([]string(nil), env...)
	for _, n := range pass {
		if v, ok := os.LookupEnv(n); ok {
			out = append(out, n+"="+v)
		}
	}
	return out
}

// NewID returns a fresh handle id: prefix, a dash, 12 hex digits.
func NewID(prefix string) (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", Errorf(ErrUnavailable, "random id: %v", err)
	}
	return prefix + "-" + hex.EncodeToString(b[:]), nil
}

// Size is the terminal's size, 80×24 where unset.
func (c TerminalConfig) Size() (cols, rows uint16) {
	cols, rows = c.Cols, c.Rows
	if cols == 0 {
		cols = 80
	}
	if rows == 0 {
		rows = 24
	}
	return cols, rows
}

// Shell is the terminal's command: Args, or a login shell.
func (c TerminalConfig) Shell() []string {
	if len(c.Args) > 0 {
		return c.Args
	}
	return []string{"/bin/sh", "-l"}
}
