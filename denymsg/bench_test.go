package denymsg

import (
	"os"
	"testing"
)

// BenchmarkStream measures the scanning path on a realistic build log (go -x,
// go test -v, gcc warnings, cargo; a few denials and near misses), written in
// 32 KiB chunks as an io.Copy from a pipe would.
func BenchmarkStream(b *testing.B) {
	log, err := os.ReadFile("testdata/buildlog.txt")
	if err != nil {
		b.Fatal(err)
	}
	f := Facts{
		Writable:    []string{"/home/u/proj", "/tmp", "/var/tmp"},
		Hidden:      []string{"/home/u/.ssh", "/home/u/.aws"},
		Protected:   []string{"/home/u/proj/.git/hooks", "/home/u/proj/.git/config"},
		NetworkDeny: true,
		Cwd:         "/home/u/proj",
	}
	const chunk = 32 << 10
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		r := New(f)
		w := r.Stream()
		for p := log; len(p) > 0; p = p[min(len(p), chunk):] {
			w.Write(p[:min(len(p), chunk)])
		}
		if len(r.Hints(Exit{Code: 1})) != 3 {
			b.Fatalf("hints = %q", r.Hints(Exit{Code: 1}))
		}
	}
}
