//go:build linux

package apple

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/conformance"
	"github.com/zsandbox/zsandbox/contexts/internal/dockertest"
)

var daemon *dockertest.Daemon

func TestMain(m *testing.M) {
	dockertest.Main(m, func(d *dockertest.Daemon, _ string) { daemon = d })
}

// shimContext is the apple context driving the docker CLI through
// testdata/container-shim.sh (see there: a test of this package's logic,
// not of Apple's CLI).
func shimContext(t *testing.T) *Context {
	t.Helper()
	if daemon == nil {
		t.Skip("no private dockerd")
	}
	shim, _ := filepath.Abs("testdata/container-shim.sh")
	t.Setenv("ZCTX_SHIM_DOCKER_HOST", daemon.Host)
	c, _ := New(contexts.Options{Image: dockertest.Image, Extra: map[string]string{"container": shim}})
	return c
}

func TestConformanceThroughShim(t *testing.T) {
	conformance.Run(t, func(t *testing.T) conformance.Target {
		c := shimContext(t)
		return conformance.Target{Context: c, Leftovers: func(t *testing.T) []string {
			out, err := c.output(context.Background(), listArgs())
			if err != nil {
				t.Fatal(err)
			}
			if s := strings.TrimSpace(string(out)); s != "[]" {
				return []string{s}
			}
			return nil
		}}
	})
}

func TestAttachDestroyedThroughShim(t *testing.T) {
	c := shimContext(t)
	h, err := c.Spawn(context.Background(), contexts.SpawnConfig{})
	if err != nil {
		t.Fatal(err)
	}
	st := h.State()
	if _, err := c.Attach(context.Background(), st); err != nil {
		t.Errorf("Attach of a running container: %v", err)
	}
	h.Destroy(context.Background())
	if err := h.Destroy(context.Background()); err != nil {
		t.Errorf("second Destroy: %v", err)
	}
	if _, err := c.Attach(context.Background(), st); err == nil {
		t.Errorf("Attach of a destroyed container succeeded")
	}
}

// With no container CLI, every call is ErrUnavailable naming the fix.
func TestNoCLI(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	c, _ := New(contexts.Options{})
	if _, err := c.Spawn(context.Background(), contexts.SpawnConfig{}); err == nil || contexts.Hint(err) == "" {
		t.Errorf("Spawn without the CLI = %v, want ErrUnavailable with a hint", err)
	}
	if err := c.Probe(context.Background()); err == nil {
		t.Errorf("Probe without the CLI succeeded")
	}
}
