package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// TestObeyedFilesOfAnotherUserRefused: a settings file or seccomp profile
// owned by another user (nobody here), in a directory that user owns, with
// no group or other write bit: that user's own sandboxed runs (cwd or
// --writable there) may rewrite it, and the caller's next run would obey
// it. zsandbox only looked at the mode bits and obeyed it: the settings
// named a victim directory writable. Refused (127) naming the file; the
// victim is untouched.
func TestObeyedFilesOfAnotherUserRefused(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		cfg := filepath.Join(e.base, "cfg")
		e.mkdir(cfg)
		settings := filepath.Join(cfg, "settings.json")
		prof := filepath.Join(cfg, "profile.json")
		e.write(settings, `{"writable": ["`+e.outside+`"]}`)
		e.write(prof, `{"defaultAction": "SCMP_ACT_ALLOW"}`)
		for _, p := range []string{cfg, settings, prof} {
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
		victim := filepath.Join(e.outside, "file")
		mustRefuse(t, e.run("exec", "--settings", settings, "--", "sh", "-c", "echo pwned > "+victim), settings, "--settings of another user")
		mustRefuse(t, e.run("exec", "--seccomp-profile", prof, "--", "true"), prof, "--seccomp-profile of another user")
		harness.MustContain(t, victim, "original\n")
	})
}
