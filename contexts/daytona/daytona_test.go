//go:build linux

package daytona

import (
	"testing"

	"github.com/zsandbox/zsandbox/contexts/conformance"
	"github.com/zsandbox/zsandbox/contexts/daytona/daytonatest"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

func TestMain(m *testing.M) { remotetest.Main(m) }

const testKey = "dtn_replica_secret_0123456789abcdef"

func replica(t *testing.T, o daytonatest.Options) *daytonatest.Server {
	t.Helper()
	if o.Runner == nil {
		o.Runner = remotetest.DockerRunner(t)
	}
	if o.APIKey == "" {
		o.APIKey = testKey
	}
	s := daytonatest.NewServer(o)
	t.Cleanup(s.Close)
	return s
}

func provider(t *testing.T, s *daytonatest.Server, o Options) *Context {
	t.Helper()
	o.APIURL = s.APIURL()
	if o.APIKey == "" {
		o.APIKey = testKey
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
		s := replica(t, daytonatest.Options{})
		return conformance.Target{Context: provider(t, s, Options{}),
			Leftovers: func(*testing.T) []string { return s.Existing() }}
	})
}
