package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// completeScript is what `zsandbox completion SHELL` prints, in a file.
func completeScript(t *testing.T, shell string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"zsandbox", "completion", shell}, &out, &errb); code != 0 {
		t.Fatalf("completion %s: exit %d: %s", shell, code, errb.String())
	}
	file := filepath.Join(t.TempDir(), "zsandbox."+shell)
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func needShell(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" && name == "bash" {
			t.Fatalf("%s not installed", name)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

// TestBashCompletion loads the generated script into a real bash (bash -n
// first), checks it registered the function for zsandbox (complete -p),
// and drives it as readline does, through COMP_WORDS and COMP_CWORD: the
// candidates for each line are exactly the expected ones.
func TestBashCompletion(t *testing.T) {
	bash := needShell(t, "bash")
	script := completeScript(t, "bash")
	if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	tests := []struct {
		line string // the words typed; the last is the one being completed
		want []string
	}{
		{"zsandbox ''", []string{"completion", "doctor", "exec", "explain", "version"}},
		{"zsandbox ex", []string{"exec", "explain"}},
		{"zsandbox exec", []string{"exec"}},
		{"zsandbox exec --wri", []string{"--writable"}},
		{"zsandbox exec --writable /tmp --n", []string{"--network", "--no-warning"}},
		{"zsandbox explain --fo", []string{"--format"}},
		{"zsandbox exec --for", nil}, // --format is explain's, not exec's
		{"zsandbox doctor --", []string{"--format"}},
		{"zsandbox nosuch --", nil},
		// After "--" comes the command zsandbox runs: command names.
		{"zsandbox exec -- zsandbox-completion-test-", []string{"zsandbox-completion-test-cmd"}},
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "zsandbox-completion-test-cmd"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var driver strings.Builder
	driver.WriteString("source \"$1\"\ncomplete -p zsandbox\n")
	for _, tt := range tests {
		driver.WriteString("COMP_WORDS=(" + tt.line + "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _zsandbox\n")
		driver.WriteString("echo \"> ${COMPREPLY[*]}\"\n")
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", driver.String(), "driver", script)
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(tests)+1 || lines[0] != "complete -o default -F _zsandbox zsandbox" {
		t.Fatalf("bash printed:\n%s", out)
	}
	for i, tt := range tests {
		got := strings.Fields(strings.TrimPrefix(lines[i+1], ">"))
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("completing %s: candidates %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestZshAndFishCompletionParse: the zsh and fish scripts are valid for
// their shells, where installed.
func TestZshAndFishCompletionParse(t *testing.T) {
	for _, sh := range []struct{ shell, check string }{{"zsh", "-n"}, {"fish", "--no-execute"}} {
		t.Run(sh.shell, func(t *testing.T) {
			p := needShell(t, sh.shell)
			if out, err := exec.Command(p, sh.check, completeScript(t, sh.shell)).CombinedOutput(); err != nil {
				t.Errorf("%s %s: %v\n%s", sh.shell, sh.check, err, out)
			}
		})
	}
}
