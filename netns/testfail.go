//go:build zsandbox_test

package netns

import "os"

// In a binary built with -tags zsandbox_test (the e2e tests' build, never a
// release), ZSANDBOX_TEST_NETNS_FAIL makes the role fail as a namespace that
// cannot be set up would, so the tests can check that nothing runs.
func init() {
	if os.Getenv("ZSANDBOX_TEST_NETNS_FAIL") != "" {
		testFail = "ZSANDBOX_TEST_NETNS_FAIL is set"
	}
}
