package process

import (
	"context"
	"os/exec"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/benchpair"
)

// BenchmarkExecTrue times one `true` through the process context (policy
// resolved, zsandbox found and checked, run under it) against the same
// `zsandbox exec` command line run directly, round by round.
func BenchmarkExecTrue(b *testing.B) {
	dir := b.TempDir()
	c, _ := New(contexts.Options{Zsandbox: zsandboxBin})
	h, err := c.Spawn(context.Background(), contexts.SpawnConfig{Cwd: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Destroy(context.Background())
	benchpair.Run(b, "context", func() {
		if r, err := h.Exec(context.Background(), contexts.Cmd{Args: []string{"true"}}); err != nil || r.ExitCode != 0 {
			b.Fatalf("exec: %v %d %s", err, r.ExitCode, r.Stderr)
		}
	}, "zsandbox", func() {
		if err := exec.Command(zsandboxBin, "exec", "--cwd", dir, "--network", "deny", "--", "true").Run(); err != nil {
			b.Fatal(err)
		}
	})
}
