//go:build linux

package e2b

import (
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/contexts/conformance"
	"github.com/zsandbox/zsandbox/contexts/e2b/e2btest"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

func TestMain(m *testing.M) { remotetest.Main(m) }

// testKey looks like a real key, so a leak of it is easy to find.
const testKey = "e2b_replica_secret_0123456789abcdef"

// replica starts an e2b replica whose sandboxes are containers of the
// private dockerd.
func replica(t *testing.T, o e2btest.Options) *e2btest.Server {
	t.Helper()
	if o.Runner == nil {
		o.Runner = remotetest.DockerRunner(t)
	}
	if o.APIKey == "" {
		o.APIKey = testKey
	}
	s := e2btest.NewServer(o)
	t.Cleanup(s.Close)
	return s
}

func provider(t *testing.T, s *e2btest.Server, o Options) *Context {
	t.Helper()
	o.APIURL, o.SandboxURL = s.URL, s.URL
	if o.APIKey == "" {
		o.APIKey = testKey
	}
	if o.ReadinessTimeout == 0 {
		o.ReadinessTimeout = 20 * time.Second
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var ctxT = remotetest.Ctx

func TestReplica_Conformance(t *testing.T) {
	conformance.Run(t, func(t *testing.T) conformance.Target {
		s := replica(t, e2btest.Options{})
		return conformance.Target{Context: provider(t, s, Options{}),
			Leftovers: func(*testing.T) []string { return s.Existing() }}
	})
}
