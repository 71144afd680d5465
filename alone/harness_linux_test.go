package alone

import (
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
	"github.com/zsandbox/zsandbox/internal/probe"
	"github.com/zsandbox/zsandbox/landlock"
)

// The real tests re-execute the test binary (internal/harness) as a helper
// named by helperEnv: "alone", the command the backend runs, which tries
// the probes in its arguments (internal/probe) and, run directly, is the
// control that shows a refusal is the sandbox's; "readrules", which hides
// paths with ReadRules and then probes.
const helperEnv = "ZSANDBOX_ALONE_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
	case "alone":
		// The tiocsti probe makes a pty the controlling terminal; closing
		// it hangs the session up.
		signal.Ignore(syscall.SIGHUP)
		probe.Print(os.Args[1:])
		os.Exit(0)
	case "readrules":
		os.Exit(readRulesHelper(os.Args[1:]))
	default:
		os.Exit(harness.Fatalf("unknown helper %q", os.Getenv(helperEnv)))
	}
	code := m.Run()
	harness.Cleanup()
	os.Exit(code)
}

// readRulesHelper hides the paths before "--" with ReadRules over the real
// file system (reads only: nothing is writable), then runs the probes.
func readRulesHelper(args []string) int {
	var hidden, probes []string
	for i, a := range args {
		if a == "--" {
			hidden, probes = args[:i], args[i+1:]
			break
		}
	}
	rules, err := ReadRules(hidden, Kind, List)
	if err != nil {
		return harness.Fatalf("%v", err)
	}
	fd, err := landlock.RulesetFD(landlock.Ruleset{HandledFS: landlock.HandledFS(hostABI) &^ landlock.AccessResolveUnix, Paths: rules})
	if err != nil {
		return harness.Fatalf("%v", err)
	}
	if err := landlock.RestrictSelf(fd, true); err != nil {
		return harness.Fatalf("%v", err)
	}
	probe.Print(probes)
	return 0
}

// hostABI is this kernel's Landlock ABI.
var hostABI = landlock.ABI()
