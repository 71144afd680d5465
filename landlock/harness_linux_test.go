package landlock

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/internal/harness"
	"github.com/zsandbox/zsandbox/internal/probe"
)

// The real tests re-execute the test binary (internal/harness): as stage 2
// (the first argument is Stage2Arg, exactly as zsandbox's main will), or
// as the probe helper (helperEnv=probe) that restricts itself and reports
// what it could do (internal/probe).
const helperEnv = "ZSANDBOX_LANDLOCK_HELPER"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Stage2Arg {
		exit.Exit(Stage2(os.Args[2:]))
	}
	if h := os.Getenv(helperEnv); h != "" {
		if h != "probe" {
			os.Exit(harness.Fatalf("unknown helper %q", h))
		}
		os.Exit(probeHelper(os.Args[1:]))
	}
	code := m.Run()
	harness.Cleanup()
	os.Exit(code)
}

// probeHelper applies the Ruleset in args (as the stage 2 reads it) on
// every thread and tries each probe after "--". Every probe runs on this
// goroutine, which apply locked to the restricted thread, with raw system
// calls, so nothing hops to another thread.
func probeHelper(args []string) int {
	rs, probes, err := ParseArgs(args)
	if err != nil {
		return harness.Fatalf("%v", err)
	}
	err = apply(rs, true)
	abi := 0
	if err == nil && rs.Status == StatusEnforced {
		abi = rs.ABI
	}
	fmt.Printf("abi -> %d\n", abi)
	if err != nil {
		fmt.Printf("enforce -> %v\n", err)
		return 0
	}
	_, _, e := syscall.AllThreadsSyscall(unix.SYS_GETPID, 0, 0, 0)
	fmt.Printf("all threads -> %v\n", e != unix.ENOTSUP)
	probe.Print(probes)
	return 0
}

// probeRun runs the probe helper as f's identity: it enforces c, then tries
// each probe; the "probe -> result" lines come back as a map.
func probeRun(f *harness.Fixture, c Config, probes ...string) (abi int, got map[string]string) {
	f.T.Helper()
	r := harness.Run(f.T, f.Command(harness.Binary(f.T), c.Command("", probes)[2:], helperEnv+"=probe"))
	if r.Code != 0 {
		f.T.Fatalf("helper exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	got = probe.Parse(r.Stdout)
	abi, _ = strconv.Atoi(got["abi"])
	return abi, got
}

// hostABI is this kernel's Landlock ABI: what zsandbox's parent would plan
// the fence for.
var hostABI = ABI()
