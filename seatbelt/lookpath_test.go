package seatbelt

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{bin, filepath.Join(dir, "other")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "tool"), 0o755)
	write(filepath.Join(bin, "data"), 0o644)
	write(filepath.Join(dir, "other", "data"), 0o755)
	write(filepath.Join(dir, "local"), 0o755)

	for _, tc := range []struct {
		name, cmd string
		env       []string
		want      string // "" means not found
	}{
		{"found on PATH", "tool", []string{"PATH=" + bin}, filepath.Join(bin, "tool")},
		{"the last PATH wins", "tool", []string{"PATH=/nonexistent", "PATH=" + bin}, filepath.Join(bin, "tool")},
		{"skips a non-executable", "data", []string{"PATH=" + bin + ":" + filepath.Join(dir, "other")}, filepath.Join(dir, "other", "data")},
		{"relative PATH entry resolves against dir", "tool", []string{"PATH=bin"}, filepath.Join(bin, "tool")},
		{"empty PATH entry is dir", "local", []string{"PATH=:/nonexistent"}, filepath.Join(dir, "local")},
		{"a slash: kept as written", "./local", nil, "./local"},
		{"absolute", filepath.Join(bin, "tool"), nil, filepath.Join(bin, "tool")},
		{"missing", "no-such-tool", []string{"PATH=" + bin}, ""},
		{"missing with a slash", "./nope", nil, ""},
		{"empty name", "", nil, ""},
		{"not found on the default PATH", "zsandbox-no-such-tool", nil, ""},
	} {
		got, err := lookPath(tc.cmd, tc.env, dir)
		switch {
		case tc.want == "" && !errors.Is(err, exec.ErrNotFound):
			t.Errorf("%s: lookPath(%q) = %q, %v; want exec.ErrNotFound", tc.name, tc.cmd, got, err)
		case tc.want != "" && (err != nil || got != tc.want):
			t.Errorf("%s: lookPath(%q) = %q, %v; want %q", tc.name, tc.cmd, got, err, tc.want)
		}
	}
}
