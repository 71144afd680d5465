package landlock

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkStage2Binary times stage 2 as zsandbox runs it: the full
// zsandbox binary built the way scripts/build.sh builds it (static, cgo),
// once as it is (stage 2 in C, from the constructor in stage2_linux.c) and
// once with -tags zsandbox_gostage2 (the Go stage 2, after the Go runtime
// and every package init), against the command run directly. Each round
// runs the three back to back, first one rotating; it reports the median of
// each and the median per-round overhead over the direct run. Use
// -benchtime=300x.
func BenchmarkStage2Binary(b *testing.B) {
	dir := b.TempDir()
	build := func(name, tags string) string {
		b.Helper()
		out := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-trimpath", "-tags", tags,
			"-ldflags", "-s -w -linkmode external -extldflags -static", "-o", out, "github.com/zsandbox/zsandbox")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Skipf("static build (needs gcc and libseccomp.a): %v\n%s", err, msg)
		}
		return out
	}
	const tags = "osusergo,netgo,urfave_cli_no_docs"
	cBin := build("zsandbox-c", tags)
	goBin := build("zsandbox-go", tags+",zsandbox_gostage2")
	c := Config{Mode: ModeAuto, Writable: []string{dir, "/tmp", "/var/tmp"}, NetworkDeny: true}
	command := []string{"/bin/true"}
	variants := []struct {
		name string
		argv []string
	}{
		{"direct", command},
		{"c", c.Command(cBin, command)},
		{"go", c.Command(goBin, command)},
	}
	times := make([][]time.Duration, len(variants))
	round := 0
	for b.Loop() {
		var t [3]time.Duration
		for k := range variants {
			i := (k + round) % len(variants)
			v := variants[i]
			start := time.Now()
			out, err := exec.Command(v.argv[0], v.argv[1:]...).CombinedOutput()
			t[i] = time.Since(start)
			if err != nil || len(out) != 0 {
				b.Fatalf("%s: %v %s", v.name, err, out)
			}
		}
		for i := range variants {
			times[i] = append(times[i], t[i])
		}
		round++
	}
	median := func(d []time.Duration) float64 {
		d = slices.Clone(d)
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds())
	}
	overhead := func(i int) float64 {
		d := make([]time.Duration, len(times[i]))
		for r := range d {
			d[r] = times[i][r] - times[0][r]
		}
		return median(d)
	}
	for i, v := range variants {
		b.ReportMetric(median(times[i]), v.name+"-µs")
	}
	b.ReportMetric(overhead(1), "c-overhead-µs")
	b.ReportMetric(overhead(2), "go-overhead-µs")
}
