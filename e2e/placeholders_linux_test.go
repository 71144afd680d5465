//go:build linux

package e2e

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPartlySharedPlaceholdersRemoved: a run's missing protected files are
// links to one file, and the lock is that file's. Run 1 (cwd = home) makes
// the home's rc files and the project config entries; run 2 (cwd = the
// same directory, another HOME) shares only the project config names.
// Run 1 ends first, while run 2 still holds them: none of run 1's names
// may be removed under run 2 (it could then create them), and once run 2
// ends too, every name of both runs is gone from the host, the ones only
// run 1 used included.
func TestPartlySharedPlaceholdersRemoved(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		os.RemoveAll(filepath.Join(e.home, ".config", "zsandbox"))
		before := snapshot(t, e.home)
		release := filepath.Join(e.outside, "release")
		first := e.command(e.home, "exec", "--", "sh", "-c", "echo ready; while [ ! -e "+release+" ]; do sleep 0.05; done")
		out, _ := first.StdoutPipe()
		if err := first.Start(); err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out).ReadString('\n')
		if _, err := os.Lstat(filepath.Join(e.home, ".bashrc")); err != nil {
			t.Fatalf("run 1 holds no placeholder for .bashrc: %v", err)
		}
		firstDone := filepath.Join(e.outside, "first-done")
		second := e.command(e.home, "exec", "--", "sh", "-c",
			"echo ready; while [ ! -e "+firstDone+" ]; do sleep 0.05; done; echo planted > .envrc")
		second.Env = withHome(second.Env, e.outside)
		out2, _ := second.StdoutPipe()
		if err := second.Start(); err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out2).ReadString('\n')
		os.WriteFile(release, nil, 0o644)
		first.Wait()
		os.WriteFile(firstDone, nil, 0o644)
		second.Wait()
		if b, err := os.ReadFile(filepath.Join(e.home, ".envrc")); err == nil && len(b) > 0 {
			t.Errorf("run 2 planted .envrc after run 1 ended: %q", b)
		}
		waitFor(5*time.Second, func() bool { return len(snapshot(t, e.home)) == len(before) })
		assertSameTree(t, before, snapshot(t, e.home), "after two runs that shared some placeholders")
	})
}
