package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// noCgoZsandbox builds zsandbox with CGO_ENABLED=0 (once: harness.Build
// keeps it) next to the other tools.
func noCgoZsandbox(t *testing.T) string {
	t.Helper()
	bin, err := buildZsandbox("zsandbox-nocgo", "0")
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestNoCgoBuildEnforces: a cgo-free Linux build runs exec with the
// built-in program (the filter is in force: TIOCSTI and unshare refused,
// which the host allows), and a user profile, which it cannot compile, is
// a clear 127 with nothing run.
func TestNoCgoBuildEnforces(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the built-in program is precompiled for amd64 only")
	}
	bin := noCgoZsandbox(t)
	each(t, func(t *testing.T, e *env) {
		for _, name := range []string{"tiocsti", "unshare-user"} {
			cmd := e.command(e.proj, "exec", "--", attackBin, "syscall", name)
			cmd.Path, cmd.Args[0] = bin, bin
			r := e.collect(cmd)
			if got := strings.TrimSpace(strings.SplitN(r.Stdout, "\n", 2)[0]); got != "EPERM" {
				t.Errorf("%s under the cgo-free build: %q, want EPERM\n%s", name, got, r)
			}
		}
		prof := filepath.Join(e.base, "profile.json")
		if err := os.WriteFile(prof, []byte(`{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		marker := filepath.Join(e.proj, "ran")
		cmd := e.command(e.proj, "exec", "--seccomp-profile", prof, "--", "touch", marker)
		cmd.Path, cmd.Args[0] = bin, bin
		r := e.collect(cmd)
		if r.Code != 127 || !strings.Contains(r.Stderr, "built without cgo") {
			t.Errorf("a user profile under the cgo-free build: want exit 127 naming cgo\n%s", r)
		}
		harness.MustNotExist(t, marker)
	})
}
