package remote

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLoadPregameRefusesWhatIsNotAScript: a FIFO hung zctx (os.ReadFile
// waited for a writer) and /dev/zero filled its memory; both are refused
// at once as usage errors, and a regular script still loads.
func TestLoadPregameRefusesWhatIsNotAScript(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.sh")
	if err := os.WriteFile(big, make([]byte, maxPregame+1), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{fifo, "/dev/zero", dir, big} {
		if _, err := LoadPregame("e2b", nil, file); err == nil || !strings.Contains(err.Error(), "--pregame") {
			t.Errorf("LoadPregame(%s) = %v, want a --pregame usage error", file, err)
		}
	}
	ok := filepath.Join(dir, "setup.sh")
	if err := os.WriteFile(ok, []byte("echo hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pre, err := LoadPregame("e2b", nil, ok)
	if err != nil || pre.Name != "setup.sh" || string(pre.Content) != "echo hi\n" {
		t.Errorf("LoadPregame(setup.sh) = %+v, %v", pre, err)
	}
}
