//go:build linux && cgo

package seccomp

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the precompiled built-in programs under builtin/")

// TestBuiltinIsCurrent: the embedded programs are exactly what libseccomp
// makes of the built-in profile today, so a change to profiles/seccomp.json
// cannot ship with a stale filter.
func TestBuiltinIsCurrent(t *testing.T) {
	for _, s := range builtinSockets {
		want, err := Compile(WithSockets(Default(), s))
		if err != nil {
			t.Fatal(err)
		}
		name := builtinName(runtime.GOARCH, s)
		if *update {
			if err := os.WriteFile(filepath.FromSlash(name), want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, ok := Builtin(s)
		if !ok {
			t.Logf("no precompiled program for %s: exec compiles at run time", runtime.GOARCH)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale (%d bytes, libseccomp makes %d): run go test ./seccomp -run TestBuiltinIsCurrent -update", name, len(got), len(want))
		}
	}
}
