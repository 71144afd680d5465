package apple

import (
	"context"
	"os"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/conformance"
)

// TestReal runs the conformance suite against Apple's real container CLI
// (macOS 26, Apple silicon; scripts/ci-macos.sh sets ZCTX_APPLE=1 once
// `container system status` answers). The image needs a registry.
func TestReal(t *testing.T) {
	if os.Getenv("ZCTX_APPLE") != "1" {
		t.Skip("set ZCTX_APPLE=1 on a Mac with Apple's container running")
	}
	img := os.Getenv("ZCTX_APPLE_IMAGE")
	if img == "" {
		img = "docker.io/library/alpine:3"
	}
	c, _ := New(contexts.Options{Image: img})
	if err := c.Probe(context.Background()); err != nil {
		t.Fatalf("Probe: %v", err)
	}
	conformance.Run(t, func(t *testing.T) conformance.Target { return conformance.Target{Context: c} })
}
