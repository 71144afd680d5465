package remotetest

import (
	"os"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/conformance"
)

// Live is a TestLive_* test: the conformance suite against the real
// service when keyVar is set (never in CI), a loud skip otherwise.
func Live(t *testing.T, keyVar, service string, make func() (contexts.Context, error)) {
	if os.Getenv(keyVar) == "" {
		t.Skipf("%s: %s is not set; NOTHING was run against the real %s service", t.Name(), keyVar, service)
	}
	conformance.Run(t, func(t *testing.T) conformance.Target {
		c, err := make()
		if err != nil {
			t.Fatal(err)
		}
		return conformance.Target{Context: c}
	})
}
