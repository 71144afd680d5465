//go:build linux

package e2b

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/e2b/e2btest"
	"github.com/zsandbox/zsandbox/contexts/internal/remote"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

func TestReplica_CloneToken(t *testing.T) {
	s := replica(t, e2btest.Options{Runner: remotetest.WithSetup(remotetest.DockerRunner(t), remotetest.FakeGit)})
	remotetest.CloneToken(t, remotetest.CloneTarget{
		Spawn: func(t *testing.T, clone *remote.Clone, env []string) (contexts.Handle, error) {
			return provider(t, s, Options{Clone: clone}).Spawn(ctxT(t), contexts.SpawnConfig{Env: env})
		},
		Records:   func() []string { return nil }, // the replica keeps no command text; envd neither
		Leftovers: s.Existing,
	})
}

// Attack: git's output (GIT_TRACE_CURL with GIT_TRACE_REDACT=0, a
// helper's message) holds the token's header and then enough output that
// the error's 500-character tail starts inside it: the tail was cut
// first and scrubbed after, so the token's end was quoted. A real git
// stand-in in a real container prints exactly that.
func TestReplica_CloneErrorTailHasNoPartOfTheToken(t *testing.T) {
	const token = "ghp_TailCutToken0123456789abcdefABCDEFxyz"
	git := `cat > /bin/git <<'G'
#!/bin/sh
echo "> $GIT_CONFIG_VALUE_0" >&2
printf '%0478d\n' 0
exit 128
G
chmod 755 /bin/git`
	s := replica(t, e2btest.Options{Runner: remotetest.WithSetup(remotetest.DockerRunner(t), git)})
	_, err := provider(t, s, Options{Clone: &remote.Clone{URL: "https://github.com/acme/app.git", Token: token}}).Spawn(ctxT(t), contexts.SpawnConfig{})
	if err == nil || !strings.Contains(err.Error(), "exited 128") {
		t.Fatalf("spawn: %v; want the failed clone", err)
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(remote.GitUser + ":" + token))
	if strings.Contains(err.Error(), b64[len(b64)-12:]) || strings.Contains(err.Error(), token[len(token)-12:]) {
		t.Errorf("a part of the token is in the error: %v", err)
	}
	if got := s.Existing(); len(got) != 0 {
		t.Errorf("sandboxes left: %q", got)
	}
}
