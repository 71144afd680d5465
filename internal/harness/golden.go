package harness

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Golden compares got with testdata/name, rewriting the file first when
// update (the package's -update flag) is set.
func Golden(t *testing.T, name, got string, update bool) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if diff := cmp.Diff(got, string(want)); diff != "" {
		t.Errorf("%s mismatch (-got +want):\n%s", name, diff)
	}
}
