package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// raceFixture makes race/sub (the victim's working directory), race/link
// (a symlink to a directory that is no root of either run) and the victim.
func raceFixture(t *testing.T, e *env) (parent, sub, victim string) {
	t.Helper()
	parent = filepath.Join(e.proj, "race")
	sub = filepath.Join(parent, "sub")
	victim = filepath.Join(e.base, "victim")
	e.mkdir(sub)
	e.mkdir(victim)
	if err := os.Symlink(victim, filepath.Join(parent, "link")); err != nil {
		t.Fatal(err)
	}
	e.chownAll()
	return parent, sub, victim
}

// TestRootSwapRace: one sandboxed command keeps exchanging another run's
// working directory with a symlink to a directory that is no root of
// either run (renameat2 RENAME_EXCHANGE, as fast as it can), while the
// other run, started from inside that directory, writes through the
// symlink's target. Whatever the timing, the target must stay untouched:
// each run either works in its real directory or refuses (127).
func TestRootSwapRace(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		parent, sub, victim := raceFixture(t, e)
		swapper := e.command(parent, "exec", "--", attackBin, "swap", "sub", "link", "6000")
		if err := swapper.Start(); err != nil {
			t.Fatal(err)
		}
		defer swapper.Wait()
		// The shell keeps its working directory on the real sub (an inode),
		// as an agent's long-lived shell would, and runs zsandbox from it.
		loop := `for i in $(seq 60); do "$ZS" exec -- sh -c 'echo x >> "$V/pwned"' 2>>"$ERRS"; echo "$?" >> "$ERRS.codes"; done`
		cmd := e.command(sub)
		cmd.Path = "/bin/sh"
		cmd.Args = []string{"sh", "-c", "cd " + sub + " && " + loop}
		errs := filepath.Join(e.base, "errs")
		cmd.Env = append(cmd.Env, "ZS="+zsandbox, "V="+victim, "ERRS="+errs)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("victim loop: %v\n%s", err, out)
		}
		harness.MustNotExist(t, filepath.Join(victim, "pwned"))
		if s, _ := os.ReadFile(errs); len(s) > 0 {
			t.Logf("stderr of the victim runs (first lines):\n%.1500s", s)
		}
		codes, _ := os.ReadFile(errs + ".codes")
		t.Logf("exit codes of the victim runs: %s", strings.Join(strings.Fields(string(codes)), " "))
		stderr, _ := os.ReadFile(errs)
		if strings.Contains(string(stderr), "panic") {
			t.Errorf("zsandbox panicked under the race:\n%s", stderr)
		}
	})
}

// TestRootSwapRaceAlone: the same race against --backend landlock, whose
// Landlock rules are opened by path: a swapped-in symlink must make the
// run refuse, never carry the write rule to its target.
func TestRootSwapRaceAlone(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		if e.id.UID == 0 {
			return // the backend refuses root (TestAloneBackend)
		}
		parent, sub, victim := raceFixture(t, e)
		swapper := e.command(parent, "exec", "--", attackBin, "swap", "sub", "link", "5000")
		if err := swapper.Start(); err != nil {
			t.Fatal(err)
		}
		defer swapper.Wait()
		loop := `for i in $(seq 60); do "$ZS" exec --backend landlock --no-warning -- sh -c 'echo x >> "$V/pwned"' 2>/dev/null; done; true`
		cmd := e.command(sub)
		cmd.Path = "/bin/sh"
		cmd.Args = []string{"sh", "-c", "cd " + sub + " && " + loop}
		cmd.Env = append(cmd.Env, "ZS="+zsandbox, "V="+victim)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("victim loop: %v\n%s", err, out)
		}
		harness.MustNotExist(t, filepath.Join(victim, "pwned"))
	})
}
