//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPartlySharedPlaceholdersRemoved: run 1 (cwd = home) makes
// placeholders for the home's rc files and the project config entries;
// run 2 (cwd = the same directory, another HOME) shares only the project
// config ones, and may write ~/.bashrc, which is not its home's. Run 1
// ends first: the names run 2 holds must stay (it could then create
// them), writing run 1's .bashrc placeholder must not change run 2's
// .envrc (placeholders that were links to one file did), and once run 2
// ends, nothing of either run is left on the host.
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
		// Run 2 may write ~/.bashrc (not its home), run 1's placeholder:
		// that must not reach .envrc, which run 2 protects too.
		second := e.command(e.home, "exec", "--", "sh", "-c",
			"chmod u+w .bashrc; echo planted > .bashrc; echo ready; while [ ! -e "+firstDone+" ]; do sleep 0.05; done; echo planted > .envrc")
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
			t.Errorf("run 2 planted .envrc: %q", b)
		}
		os.Remove(filepath.Join(e.home, ".bashrc")) // run 2's, as its policy allows
		waitFor(5*time.Second, func() bool { return len(snapshot(t, e.home)) == len(before) })
		assertSameTree(t, before, snapshot(t, e.home), "after two runs that shared some placeholders")
	})
}

// TestGuardWaitingLetsGoOfOutput: run 1 makes directories for its
// placeholders (~/.cargo for the missing credentials) and run 2 shares
// them; when run 1's command ends first, its guard waits in the background
// for run 2 to let go before it removes those directories. zsandbox must
// return meanwhile even to a caller that reads its stderr through a pipe
// (an agent, CI): the guard kept that pipe open, so the caller waited for
// the other run, and forever when it ends that run only afterwards.
func TestGuardWaitingLetsGoOfOutput(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		os.RemoveAll(filepath.Join(e.home, ".cargo"))
		before := snapshot(t, e.home)
		end1, end2 := filepath.Join(e.outside, "end1"), filepath.Join(e.outside, "end2")
		first := e.command(e.home, "exec", "--", "sh", "-c", "echo ready; while [ ! -e "+end1+" ]; do sleep 0.05; done")
		var stderr bytes.Buffer
		first.Stderr = &stderr
		out, _ := first.StdoutPipe()
		if err := first.Start(); err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out).ReadString('\n')
		if _, err := os.Lstat(filepath.Join(e.home, ".cargo", "credentials")); err != nil {
			t.Fatalf("run 1 made no placeholder in ~/.cargo: %v", err)
		}
		second := e.command(e.home, "exec", "--", "sh", "-c", "echo ready; while [ ! -e "+end2+" ]; do sleep 0.05; done")
		out2, _ := second.StdoutPipe()
		if err := second.Start(); err != nil {
			t.Fatal(err)
		}
		bufio.NewReader(out2).ReadString('\n')
		os.WriteFile(end1, nil, 0o644)
		done := make(chan error, 1)
		go func() { done <- first.Wait() }()
		returned := false
		select {
		case err := <-done:
			returned = true
			if err != nil {
				t.Errorf("run 1: %v\n%s", err, stderr.String())
			}
		case <-time.After(15 * time.Second):
			t.Errorf("run 1 did not return while run 2 holds its placeholders: its guard kept stderr open")
		}
		os.WriteFile(end2, nil, 0o644)
		second.Wait()
		if !returned {
			<-done
		}
		waitFor(5*time.Second, func() bool { return len(snapshot(t, e.home)) == len(before) })
		assertSameTree(t, before, snapshot(t, e.home), "after both runs")
	})
}
