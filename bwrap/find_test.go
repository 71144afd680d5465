package bwrap

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/policy"
)

// TestFind: the first trusted, executable bwrap in order wins; relative
// PATH entries, non-executable files and directories named bwrap are never
// candidates; a candidate trusted refuses is not run, and the error says
// why while still meaning ErrNotFound.
func TestFind(t *testing.T) {
	tmp := t.TempDir()
	dir := func(name string, kind string) string {
		d := filepath.Join(tmp, name)
		os.MkdirAll(d, 0o755)
		switch kind {
		case "exe":
			os.WriteFile(filepath.Join(d, "bwrap"), []byte("#!/bin/sh\n"), 0o755)
		case "plain":
			os.WriteFile(filepath.Join(d, "bwrap"), []byte("#!/bin/sh\n"), 0o644)
		case "dir":
			os.Mkdir(filepath.Join(d, "bwrap"), 0o755)
		}
		return d
	}
	good, planted, plain, isDir, empty := dir("good", "exe"), dir("planted", "exe"), dir("plain", "plain"), dir("isdir", "dir"), dir("empty", "")
	rel, _ := filepath.Rel(mustGetwd(t), planted)
	// trusted stands in for policy.SystemBinary: it refuses the planted
	// one and returns the real path of the others.
	trusted := func(p string) (string, error) {
		if strings.HasPrefix(p, planted) {
			return "", errors.New("owned by uid 1000")
		}
		return p + ".real", nil
	}
	tests := []struct {
		name    string
		dirs    []string
		want    string
		wantErr string // "" for success
	}{
		{"first trusted wins", []string{empty, good, planted}, filepath.Join(good, "bwrap.real"), ""},
		{"untrusted is skipped for a later trusted", []string{planted, good}, filepath.Join(good, "bwrap.real"), ""},
		{"only untrusted", []string{planted}, "", "bubblewrap (bwrap) is not installed (not run: owned by uid 1000)"},
		{"not executable", []string{plain}, "", "bubblewrap (bwrap) is not installed"},
		{"a directory named bwrap", []string{isDir}, "", "bubblewrap (bwrap) is not installed"},
		{"relative entries are never searched", []string{rel, "", "."}, "", "bubblewrap (bwrap) is not installed"},
		{"nothing", nil, "", "bubblewrap (bwrap) is not installed"},
	}
	for _, tt := range tests {
		got, err := find(tt.dirs, trusted)
		switch {
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("%s: find = %q, %v; want %q", tt.name, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrNotFound) || got != ""):
			t.Errorf("%s: find = %q, %v; want error %q (ErrNotFound)", tt.name, got, err, tt.wantErr)
		}
	}
}

// TestFindSystemPathFirst: SystemPath is tried before every PATH entry, so
// a bwrap planted early on PATH cannot shadow the distribution's.
func TestFindSystemPathFirst(t *testing.T) {
	var asked []string
	Find(t.TempDir(), func(p string) (string, error) {
		asked = append(asked, p)
		return "", errors.New("refused")
	})
	if policy.IsExecutable(SystemPath) && (len(asked) == 0 || asked[0] != SystemPath) {
		t.Errorf("trusted asked %q, want %s first", asked, SystemPath)
	}
	if !policy.IsExecutable(SystemPath) && len(asked) != 0 {
		t.Errorf("trusted asked %q with no bwrap anywhere", asked)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
