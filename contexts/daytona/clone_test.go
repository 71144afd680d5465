//go:build linux

package daytona

import (
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/daytona/daytonatest"
	"github.com/zsandbox/zsandbox/contexts/internal/remote"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

// The token goes through stdin (an uploaded file the run removes), never
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
