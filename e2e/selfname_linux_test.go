package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// TestZsandboxNameNotPlantedOnPath: a project's bin directory on PATH
// (node_modules/.bin under npm scripts, direnv's PATH_add bin) and a
// relative PATH entry stay writable, but not under zsandbox's own names:
// run 1 plants a fake zsandbox there, and the agent's next `zsandbox exec`
// by name would run it unsandboxed.
func TestZsandboxNameNotPlantedOnPath(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		bin := filepath.Join(e.proj, "node_modules", ".bin")
		e.mkdir(bin)
		e.chownAll()
		path := "PATH=" + bin + ":.:" + os.Getenv("PATH")
		for _, target := range []string{filepath.Join(bin, "zsandbox"), filepath.Join(bin, "zctx"), filepath.Join(e.proj, "zsandbox")} {
			r := e.runWith("", e.proj, []string{path}, "exec", "--", "sh", "-c",
				"printf '#!/bin/sh\\ntouch /tmp/ran\\n' > "+target+"; chmod +x "+target)
			mustFail(t, r, "plant "+target)
			if fi, err := os.Lstat(target); err == nil && fi.Size() > 0 {
				t.Errorf("%s was planted on the host", target)
			}
			harness.MustNotExist(t, target)
		}
		// The directory itself stays the project's: npm can write it.
		r := e.runWith("", e.proj, []string{path}, "exec", "--", "sh", "-c", "echo ok > "+filepath.Join(bin, "tool"))
		mustSucceed(t, r, "write node_modules/.bin/tool")
	})
}
