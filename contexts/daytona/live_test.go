//go:build live

package daytona

import (
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

// TestLive_Daytona runs the conformance suite against the real Daytona
// service (go test -tags live, with DAYTONA_API_KEY and optionally
// DAYTONA_API_URL and DAYTONA_TARGET). It creates and deletes real
// sandboxes. Never run in CI.
func TestLive_Daytona(t *testing.T) {
	remotetest.Live(t, "DAYTONA_API_KEY", "Daytona", func() (contexts.Context, error) { return New(Options{}) })
}
