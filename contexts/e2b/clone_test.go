//go:build linux

package e2b

import (
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
