//go:build live

package daytona

import (
	"os"
	"testing"

	"github.com/zsandbox/zsandbox/contexts/conformance"
)

// TestLive_Daytona runs the conformance suite against the real Daytona
// service (go test -tags live, with DAYTONA_API_KEY and optionally
// DAYTONA_API_URL and DAYTONA_TARGET). It creates and deletes real
// sandboxes. Never run in CI.
func TestLive_Daytona(t *testing.T) {
	if os.Getenv("DAYTONA_API_KEY") == "" {
		t.Skip("TestLive_Daytona: DAYTONA_API_KEY is not set; NOTHING was run against the real Daytona service")
	}
	conformance.Run(t, func(t *testing.T) conformance.Target {
		c, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		return conformance.Target{Context: c}
	})
}
