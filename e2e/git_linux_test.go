package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// git runs git on the host as root, for fixtures and checks.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "safe.directory=*"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

const sandboxCommit = "git -c user.name=z -c user.email=z@e commit -q --allow-empty -m from-sandbox"

// TestGitCommitWorks: a plain repository and a linked worktree (whose
// objects live in the main repository's common dir) both accept commits.
func TestGitCommitWorks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required")
	}
	each(t, func(t *testing.T, e *env) {
		git(t, e.proj, "init", "-q")
		git(t, e.proj, "commit", "-q", "--allow-empty", "-m", "init")
		wt := filepath.Join(e.home, "wt")
		git(t, e.proj, "worktree", "add", "-q", wt)
		e.chownAll()

		mustSucceed(t, e.sh("echo hi > f && git add f && "+sandboxCommit), "commit in repo")
		if log := git(t, e.proj, "log", "--oneline"); !strings.Contains(log, "from-sandbox") {
			t.Errorf("commit not on the host:\n%s", log)
		}
		r := e.runIn(wt, nil, "exec", "--", "sh", "-c", "echo hi > g && git add g && "+sandboxCommit)
		mustSucceed(t, r, "commit in linked worktree")
		if log := git(t, wt, "log", "--oneline"); !strings.Contains(log, "from-sandbox") {
			t.Errorf("worktree commit not on the host:\n%s", log)
		}
	})
}
