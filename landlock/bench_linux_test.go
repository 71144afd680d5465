package landlock

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/internal/harness"
)

func BenchmarkRules(b *testing.B) {
	c := Config{ABI: hostABI, Mode: ModeRequire, Writable: []string{"/home/u/proj", "/tmp", "/var/tmp"}, NetworkDeny: true}
	for b.Loop() {
		Rules(c, 7)
	}
}

// BenchmarkEnforce times building the ruleset and restricting one thread.
// A thread can stack only 16 domains, so every op runs on a fresh thread
// that exits with its domain; "thread" is that overhead alone.
func BenchmarkEnforce(b *testing.B) {
	harness.RequireABI(b, hostABI, 1)
	c := Config{ABI: hostABI, Mode: ModeRequire, Writable: []string{b.TempDir(), os.TempDir(), "/var/tmp"}, NetworkDeny: true}
	onFreshThread := func(f func() error) {
		done := make(chan error)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			done <- f()
		}()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	b.Run("thread", func(b *testing.B) {
		for b.Loop() {
			onFreshThread(func() error { return nil })
		}
	})
	b.Run("enforce", func(b *testing.B) {
		for b.Loop() {
			onFreshThread(func() error { _, err := enforce(c, false); return err })
		}
	})
}

// BenchmarkStage2 times whole processes: the command run directly, and run
// through a minimal stage-2 binary (testdata/stage2) built without cgo (the
// Go stage 2: Go start-up and execve) and with cgo linked statically (as
// scripts/build.sh builds zsandbox; the stage 2 then runs in C, see
// stage2_linux.c), with Landlock off and auto. It reports the median of the
// runs; use -benchtime=300x. BenchmarkStage2Binary compares the two in the
// full zsandbox binary.
func BenchmarkStage2(b *testing.B) {
	dir := b.TempDir()
	nocgo := buildStage2(b, filepath.Join(dir, "stage2-nocgo"), "0")
	cgo := buildStage2(b, filepath.Join(dir, "stage2-cgo"), "1",
		"-tags", "osusergo,netgo", "-ldflags", "-linkmode external -extldflags -static")
	auto := Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{dir, "/tmp", "/var/tmp"}, NetworkDeny: true}
	off := Config{ABI: hostABI, Mode: ModeOff, NetworkDeny: true}
	cmd := []string{"/bin/true"}
	cases := []struct {
		name string
		argv []string
	}{
		{"direct", cmd},
		{"nocgo-off", off.Command(nocgo, cmd)},
		{"nocgo-auto", auto.Command(nocgo, cmd)},
		{"cgo-off", off.Command(cgo, cmd)},
		{"cgo-auto", auto.Command(cgo, cmd)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				out, err := exec.Command(tc.argv[0], tc.argv[1:]...).CombinedOutput()
				times = append(times, time.Since(start))
				if err != nil || len(out) != 0 {
					b.Fatalf("%q: %v %s", tc.argv, err, out)
				}
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds()), "median-µs")
		})
	}
}

func buildStage2(b *testing.B, out, cgo string, flags ...string) string {
	b.Helper()
	args := append(append([]string{"build", "-o", out}, flags...), "./testdata/stage2")
	build := exec.Command("go", args...)
	build.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	if msg, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, msg)
	}
	return out
}
