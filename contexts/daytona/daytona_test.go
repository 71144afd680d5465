//go:build linux

package daytona

import (
	"context"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/conformance"
	"github.com/zsandbox/zsandbox/contexts/daytona/daytonatest"
	"github.com/zsandbox/zsandbox/contexts/docker"
	"github.com/zsandbox/zsandbox/contexts/internal/dockertest"
)

var (
	daemon *dockertest.Daemon
	skip   string
)

func TestMain(m *testing.M) {
	dockertest.Main(m, func(d *dockertest.Daemon, why string) { daemon, skip = d, why })
}

const testKey = "dtn_replica_secret_0123456789abcdef"

func replica(t *testing.T, o daytonatest.Options) *daytonatest.Server {
	t.Helper()
	if daemon == nil {
		t.Skip(skip)
	}
	runner, err := docker.New(contexts.Options{Host: daemon.Host, Image: dockertest.Image})
	if err != nil {
		t.Fatal(err)
	}
	o.Runner = runner
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

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestReplica_Conformance(t *testing.T) {
	conformance.Run(t, func(t *testing.T) conformance.Target {
		s := replica(t, daytonatest.Options{})
		return conformance.Target{Context: provider(t, s, Options{}),
			Leftovers: func(*testing.T) []string {
				var out []string
				for _, sb := range s.Sandboxes() {
					out = append(out, sb.ID+" "+sb.State)
				}
				return out
			}}
	})
}
