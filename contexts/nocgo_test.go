package contexts_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The module must not pull cgo (libseccomp) in through the main module's
// packages it imports: it runs the zsandbox binary instead.
func TestNoCgo(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if .CgoFiles}}{{.ImportPath}}{{end}}", "./...")
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var cgo []string
	for _, p := range strings.Fields(string(out)) {
		if p != "runtime/cgo" && !strings.HasPrefix(p, "net") && p != "os/user" {
			cgo = append(cgo, p)
		}
	}
	if len(cgo) > 0 {
		t.Errorf("packages with cgo in the module's build: %q", cgo)
	}
}
