//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/policy"
)

// TestRealDirectoryWithPlaceholderMark (red team rt13): a directory
// placeholder is an empty read-only directory with the epoch for its
// mtime, and a real credentials directory can look the same from the
// outside (unpacked from an archive made with mtime 0, then chmod 555).
// zsandbox took ~/.aws for another run's placeholder, so it was not
// masked and the command read the credentials in it; with the home
// writable, the guard then told the user to remove it by hand.
func TestRealDirectoryWithPlaceholderMark(t *testing.T) {
	for _, cwd := range []string{"proj", "home"} {
		t.Run(cwd, func(t *testing.T) {
			each(t, func(t *testing.T, e *env) {
				aws := filepath.Join(e.home, ".aws")
				if err := os.Chmod(aws, 0o555); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(aws, policy.PlaceholderTime, policy.PlaceholderTime); err != nil {
					t.Fatal(err)
				}
				dir := e.proj
				if cwd == "home" {
					dir = e.home
				}
				r := e.runIn(dir, nil, "exec", "--", "cat", filepath.Join(aws, "credentials"))
				mustFail(t, r, "reading ~/.aws/credentials")
				assertNoSecret(t, e, r, "reading ~/.aws/credentials")
				if strings.Contains(r.Stderr, "remove it by hand") {
					t.Errorf("zsandbox took ~/.aws for its placeholder\n%s", r)
				}
				if b, err := os.ReadFile(filepath.Join(aws, "credentials")); err != nil || !strings.Contains(string(b), e.secret) {
					t.Errorf("~/.aws/credentials changed on the host: %v", err)
				}
			})
		})
	}
}
