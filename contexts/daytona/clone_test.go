//go:build linux

package daytona

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/daytona/daytonatest"
	"github.com/zsandbox/zsandbox/contexts/internal/remote"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

// The token goes through stdin (an uploaded file the run removes as soon as
// it has opened it), never
// in a session command's text, which Daytona's daemon keeps and shows.
func TestReplica_CloneToken(t *testing.T) {
	s := replica(t, daytonatest.Options{Runner: remotetest.WithSetup(remotetest.DockerRunner(t), remotetest.FakeGit)})
	remotetest.CloneToken(t, remotetest.CloneTarget{
		Spawn: func(t *testing.T, clone *remote.Clone, env []string) (contexts.Handle, error) {
			return provider(t, s, Options{Clone: clone}).Spawn(ctxT(t), contexts.SpawnConfig{Env: env})
		},
		Records:   s.CommandLines,
		Leftovers: s.Existing,
	})
}

// Attack: stdin is an uploaded file, and it stayed in the sandbox while
// the clone ran (up to the pregame's 30 minutes; for good if zctx was
// killed meanwhile), where any other process of the sandbox could read
// the token's header. A git stand-in in a real container copies every
// stdin file it can find while it "clones"; none may hold the header.
func TestReplica_CloneTokenNotInAFileWhileGitRuns(t *testing.T) {
	const token = "ghp_StdinFileToken0123456789abcdefABCDEF"
	git := `cat > /bin/git <<'G'
#!/bin/sh
cat /tmp/.zctx-*/*.in > /stdin-files 2>/dev/null
for last; do :; done
mkdir -p "$last/.git"
G
chmod 755 /bin/git`
	s := replica(t, daytonatest.Options{Runner: remotetest.WithSetup(remotetest.DockerRunner(t), git)})
	h, err := provider(t, s, Options{Clone: &remote.Clone{URL: "https://github.com/acme/app.git", Token: token}}).Spawn(ctxT(t), contexts.SpawnConfig{})
	if err != nil {
		t.Fatalf("spawn: %v", err)
	}
	defer h.Destroy(ctxT(t))
	b64 := base64.StdEncoding.EncodeToString([]byte(remote.GitUser + ":" + token))
	if got := string(remotetest.Exec(t, h, "cat /stdin-files; echo end").Stdout); !strings.HasSuffix(got, "end\n") || strings.Contains(got, b64) {
		t.Errorf("while git ran, a file in the sandbox held the token's header: %q", got)
	}
}
