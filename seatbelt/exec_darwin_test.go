//go:build darwin

package seatbelt_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seatbelt"
)

// These run the real sandbox-exec on a Mac: each names the attack it tries
// and checks the effect from outside the sandbox.

type sandboxDirs struct {
	root, outside string
	prof          seatbelt.Profile
}

func newSandbox(t *testing.T) sandboxDirs {
	t.Helper()
	canon := func(p string) string {
		c, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	d := sandboxDirs{root: canon(t.TempDir()), outside: canon(t.TempDir())}
	for _, sub := range []string{".git/hooks", "hidden"} {
		if err := os.MkdirAll(filepath.Join(d.root, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, filepath.Join(d.root, "hidden", "secret"), "s3cr3t-value")
	mustWrite(t, filepath.Join(d.outside, "host.txt"), "original")
	p := &policy.Policy{
		Cwd:      d.root,
		Writable: []policy.Root{{Path: d.root}},
		Hidden:   []policy.Hidden{{Path: filepath.Join(d.root, "hidden"), Exists: true, IsDir: true}},
		Network:  policy.NetworkDeny,
	}
	prof, err := seatbelt.Render(p, []string{filepath.Join(d.root, ".git/hooks"), filepath.Join(d.root, ".git/config")})
	if err != nil {
		t.Fatal(err)
	}
	d.prof = prof
	return d
}

func mustWrite(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sh runs a shell script in the sandbox and returns its status and output.
func (d sandboxDirs) sh(t *testing.T, script string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	env := []string{"PATH=/usr/bin:/bin", "OUTSIDE=" + d.outside}
	code, err := seatbelt.ExecStdio(d.prof, []string{"sh", "-c", script}, env, d.root,
		seatbelt.Stdio{In: strings.NewReader(""), Out: &out, Err: &out})
	if err != nil {
		t.Fatalf("ExecStdio(%q): %v", script, err)
	}
	return code, out.String()
}

func TestExecDarwin(t *testing.T) {
	d := newSandbox(t)
	if err := seatbelt.Probe(d.prof); err != nil {
		t.Fatalf("Probe: %v", err)
	}
	if code, out := d.sh(t, "echo ok > inside.txt && cat inside.txt"); code != 0 || out != "ok\n" {
		t.Fatalf("writing inside the root: %d %q", code, out)
	}
	for _, tc := range []struct{ attack, script, hostPath, hostWant string }{
		{"overwrite a host file", `echo pwned > "$OUTSIDE/host.txt"`, filepath.Join(d.outside, "host.txt"), "original"},
		{"create a host file", `echo pwned > "$OUTSIDE/new.txt"`, filepath.Join(d.outside, "new.txt"), ""},
		{"plant a pre-commit hook", `echo evil > .git/hooks/pre-commit`, filepath.Join(d.root, ".git/hooks/pre-commit"), ""},
		{"write .git/config", `echo '[core] fsmonitor = evil' > .git/config`, filepath.Join(d.root, ".git/config"), ""},
		{"move the hooks aside", `mv .git/hooks .git/hooks.old && mkdir .git/hooks`, filepath.Join(d.root, ".git/hooks.old"), ""},
		{"move .git aside", `mv .git .git.old`, filepath.Join(d.root, ".git.old"), ""},
		{"move the hidden folder aside", `mv hidden visible`, filepath.Join(d.root, "visible"), ""},
		{"hard-link the secret", `ln hidden/secret copy`, filepath.Join(d.root, "copy"), ""},
	} {
		code, out := d.sh(t, tc.script)
		if code == 0 {
			t.Errorf("%s: succeeded in the sandbox (%q)", tc.attack, out)
		}
		got, err := os.ReadFile(tc.hostPath)
		if (tc.hostWant == "" && err == nil) || (tc.hostWant != "" && string(got) != tc.hostWant) {
			t.Errorf("%s: %s on the host is %q (err %v)", tc.attack, tc.hostPath, got, err)
		}
	}
	for attack, script := range map[string]string{
		"read a hidden file":                "cat hidden/secret",
		"read it through a symlink":         "ln -s hidden/secret alias && cat alias",
		"read it with the case changed":     "cat HIDDEN/secret", // APFS is case-insensitive by default
		"read it through the Data firmlink": "cat /System/Volumes/Data" + d.root + "/hidden/secret",
	} {
		if code, out := d.sh(t, script); code == 0 || strings.Contains(out, "s3cr3t") {
			t.Errorf("%s: %d %q", attack, code, out)
		}
	}
	if _, err := os.Stat(filepath.Join(d.root, ".git/hooks")); err != nil {
		t.Errorf("hooks folder gone from the host: %v", err)
	}
}

func TestExecStatus(t *testing.T) {
	d := newSandbox(t)
	for script, want := range map[string]int{"exit 7": 7, "kill -TERM $$": 143, "true": 0} {
		if code, out := d.sh(t, script); code != want {
			t.Errorf("%q: status %d (%q), want %d", script, code, out, want)
		}
	}
}

func TestExecSetupErrors(t *testing.T) {
	d := newSandbox(t)
	code, err := seatbelt.Exec(d.prof, []string{"zsandbox-no-such-command"}, []string{"PATH=/usr/bin:/bin"}, d.root)
	if code != 127 || !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("missing command: %d, %v; want 127 and exec.ErrNotFound", code, err)
	}
	bad := seatbelt.Profile{Text: "(version 1)\n(deny default)\n(allow file-bogus-operation)\n"}
	code, err = seatbelt.Exec(bad, []string{"/usr/bin/true"}, nil, d.root)
	var se *seatbelt.SetupError
	if code != 127 || !errors.As(err, &se) || !strings.Contains(se.Reason, "rejected the profile") {
		t.Errorf("rejected profile: %d, %v; want 127 and a *SetupError", code, err)
	}
	unbound := seatbelt.Profile{Text: "(version 1)\n(deny default)\n(allow file-read* (subpath (param \"NOPE_0\")))\n"}
	if err := seatbelt.Probe(unbound); !errors.As(err, &se) {
		t.Errorf("unbound parameter: Probe = %v, want a *SetupError", err)
	}
}
