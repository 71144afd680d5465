package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// explainHost lays out a home with a credential, a git repository as the
// project and a TMPDIR, and gives the process a known environment.
func explainHost(t *testing.T) (base string) {
	t.Helper()
	// Under /tmp, a default writable root, so the golden files show how
	// protection reaches into it; the name is random and prints as $BASE.
	base, err := os.MkdirTemp("/tmp", "zsandbox-explain-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	for _, d := range []string{"home/.ssh", "home/proj/.git/hooks", "home/extra", "tmpdir"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"home/.ssh/id_rsa", "home/.netrc", "home/proj/.git/config", "home/.bashrc"} {
		if err := os.WriteFile(filepath.Join(base, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Clearenv()
	t.Setenv("HOME", filepath.Join(base, "home"))
	t.Setenv("TMPDIR", filepath.Join(base, "tmpdir"))
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("GITHUB_TOKEN", "not-printed")
	// A secret under an innocent name, and a store moved by a variable.
	t.Setenv("DATABASE_URL", "postgres://app:not-printed@db/app")
	t.Setenv("GNUPGHOME", filepath.Join(base, "gpg"))
	// The account's home from the password database is the machine's
	// (/root for root): fix it to $HOME so the files do not depend on it.
	saved := accountHome
	accountHome = func() string { return filepath.Join(base, "home") }
	t.Cleanup(func() { accountHome = saved })
	t.Setenv("LANG", "C")
	return base
}

// TestExplainGolden: explain in every format for a few policies. Paths
// under the test's temp dir print as $BASE; Landlock is off and the backend
// named, so the output is the same on every Linux host (macOS resolves
// /tmp to /private/tmp, so the files would differ there).
func TestExplainGolden(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the golden files hold Linux paths")
	}
	env := os.Environ()
	defer func() {
		os.Clearenv()
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
	}()
	// The test binary lives under /tmp, a writable root: it would be
	// protected (as zsandbox's own binary) under a random name.
	defer func(f func() string) { selfExe = f }(selfExe)
	selfExe = func() string { return "" }
	base := explainHost(t)
	home, proj := filepath.Join(base, "home"), filepath.Join(base, "home", "proj")
	policies := map[string][]string{
		"default":  {"--cwd", proj},
		"cwd-home": {"--cwd", home},
		"allow":    {"--cwd", proj, "--network", "allow", "--writable", "~/extra", "--hide", ".env", "--pass-env", "GITHUB_TOKEN"},
		"unix":     {"--cwd", proj, "--network", "allow", "--allow-unix-sockets"},
		"allowlist": {"--cwd", proj, "--allow-domain", "registry.npmjs.org", "--allow-domain", "*.github.com:443",
			"--allow-domain", "127.0.0.1:8080", "--deny-domain", "gist.github.com"},
	}
	for name, flags := range policies {
		for _, format := range []string{"text", "json", "bwrap", "seatbelt"} {
			args := append([]string{"zsandbox", "explain", "--landlock", "off", "--backend", "bwrap", "--format", format}, flags...)
			args = append(args, "--", "go", "test", "./...")
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != 0 {
				t.Fatalf("explain %s %s: exit %d: %s", name, format, code, errb.String())
			}
			got := strings.ReplaceAll(out.String(), base, "$BASE")
			if strings.Contains(got, "not-printed") {
				t.Errorf("explain(%s, %s) printed a credential value", name, format)
			}
			golden := filepath.Join("testdata", "explain", name+"."+format)
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, string(want)); diff != "" {
				t.Errorf("explain(%s, %s) mismatch (-got +want):\n%s", name, format, diff)
			}
		}
	}
}
