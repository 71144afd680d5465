package process

import (
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/conformance"
	"github.com/zsandbox/zsandbox/contexts/internal/zsbin"
)

// zsandboxBin is the real zsandbox every isolated test runs.
var zsandboxBin string

// securityTests are the attacks (security_test.go); run as root, they run
// again as the unprivileged zsandbox-test: both must hold.
const securityTests = "^Test(CredentialUnreadable|WriteOutsideRoots|NetworkOff|NoZsandboxNothingRuns|" +
	"FlagLookingValuesStayValues|HostProcUnreadable|PlantedZsandboxForALaterCommand)$"

func TestMain(m *testing.M) { zsbin.Main(m, &zsandboxBin, securityTests) }

func TestConformance(t *testing.T) {
	for _, iso := range []string{"on", "off"} {
		t.Run("isolation="+iso, func(t *testing.T) {
			conformance.Run(t, func(t *testing.T) conformance.Target {
				c, err := New(contexts.Options{Isolation: iso, Zsandbox: zsandboxBin})
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				return conformance.Target{Context: c, Spawn: contexts.SpawnConfig{Cwd: dir},
					Leftovers: func(*testing.T) []string { return conformance.HostProcessesIn(dir) }}
			})
		})
	}
}
