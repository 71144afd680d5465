//go:build linux

package docker

import (
	"context"
	"testing"

	"github.com/moby/moby/client"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/conformance"
	"github.com/zsandbox/zsandbox/contexts/internal/dockertest"
)

// daemon is the private dockerd of this test binary (nil: skipped).
var (
	daemon *dockertest.Daemon
	skip   string
)

func TestMain(m *testing.M) {
	dockertest.Main(m, func(d *dockertest.Daemon, why string) { daemon, skip = d, why })
}

func needDocker(t *testing.T) {
	t.Helper()
	if daemon == nil {
		t.Skip(skip)
	}
}

func testOptions() contexts.Options {
	return contexts.Options{Host: daemon.Host, Image: dockertest.Image}
}

func newContext(t *testing.T, o contexts.Options) *Context {
	t.Helper()
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// labelled lists this context's containers still on the daemon.
func labelled(t *testing.T) []string {
	cli, err := client.New(client.WithHost(daemon.Host))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	res, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", Label)})
	if err != nil {
		t.Fatalf("list containers: %v", err)
	}
	var out []string
	for _, c := range res.Items {
		out = append(out, c.ID[:12]+" "+string(c.State))
	}
	return out
}

func TestConformance(t *testing.T) {
	needDocker(t)
	conformance.Run(t, func(t *testing.T) conformance.Target {
		return conformance.Target{Context: newContext(t, testOptions()), Leftovers: labelled}
	})
}
