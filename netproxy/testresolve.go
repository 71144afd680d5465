//go:build zsandbox_test

package netproxy

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"strings"
)

// In a binary built with -tags zsandbox_test (the e2e tests' build, never a
// release), ZSANDBOX_TEST_RESOLVE="name=addr,name=addr" replaces the host's
// resolver, so the tests can give their servers on 127.0.0.1 names; a name
// it does not list does not resolve.
func init() {
	v, ok := os.LookupEnv("ZSANDBOX_TEST_RESOLVE")
	if !ok {
		return
	}
	names := map[string][]netip.Addr{}
	for _, kv := range strings.Split(v, ",") {
		k, a, _ := strings.Cut(kv, "=")
		if addr, err := netip.ParseAddr(a); err == nil {
			names[k] = append(names[k], addr)
		}
	}
	hostResolver = func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := names[host]; ok {
			return a, nil
		}
		return nil, fmt.Errorf("no such host %q (ZSANDBOX_TEST_RESOLVE)", host)
	}
}
