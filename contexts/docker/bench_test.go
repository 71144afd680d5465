//go:build linux

package docker

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/benchpair"
	"github.com/zsandbox/zsandbox/contexts/internal/dockertest"
)

func benchHandle(b *testing.B) *Handle {
	if daemon == nil {
		b.Skip(skip)
	}
	c, _ := New(testOptions())
	h, err := c.Spawn(context.Background(), contexts.SpawnConfig{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Destroy(context.Background()) })
	return h.(*Handle)
}

func dockerCLI(b *testing.B) string {
	p, err := exec.LookPath("docker")
	if err != nil {
		b.Skip("no docker CLI")
	}
	return p
}

// BenchmarkExecTrue times one `true` through the Engine API (create,
// attach, inspect, as the docker context runs every command) against
// `docker exec CONTAINER true`, round by round.
func BenchmarkExecTrue(b *testing.B) {
	h := benchHandle(b)
	docker := dockerCLI(b)
	benchpair.Run(b, "api", func() {
		if r, err := h.Exec(context.Background(), contexts.Cmd{Args: []string{"true"}}); err != nil || r.ExitCode != 0 {
			b.Fatalf("exec: %v %d", err, r.ExitCode)
		}
	}, "cli", func() {
		if out, err := exec.Command(docker, "-H", daemon.Host, "exec", h.container, "true").CombinedOutput(); err != nil {
			b.Fatalf("docker exec: %v %s", err, out)
		}
	})
}

// BenchmarkSpawn times a hardened handle (ping, image check, create,
// start) against `docker run -d` with the same network, init and
// capability settings, round by round; every container is removed after
// the rounds, outside the timing.
func BenchmarkSpawn(b *testing.B) {
	if daemon == nil {
		b.Skip(skip)
	}
	docker := dockerCLI(b)
	c, _ := New(testOptions())
	var handles []contexts.Handle
	var ids []string
	benchpair.Run(b, "spawn", func() {
		h, err := c.Spawn(context.Background(), contexts.SpawnConfig{})
		if err != nil {
			b.Fatal(err)
		}
		handles = append(handles, h)
	}, "run-d", func() {
		out, err := exec.Command(docker, "-H", daemon.Host, "run", "-d", "--network", "none", "--init", "--cap-drop", "ALL", dockertest.Image, "sleep", "infinity").Output()
		if err != nil {
			b.Fatalf("docker run -d: %v", err)
		}
		ids = append(ids, strings.TrimSpace(string(out)))
	})
	for _, h := range handles {
		h.Destroy(context.Background())
	}
	for _, id := range ids {
		exec.Command(docker, "-H", daemon.Host, "rm", "-f", id).Run()
	}
}
