//go:build linux

package remotetest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/dockertest"
)

// docker is the package's private dockerd (Main starts it).
var private struct {
	d    *dockertest.Daemon
	skip string
}

// Main starts a private dockerd for a provider package's tests (its
// replicas' sandboxes are that daemon's containers) and stops it after.
func Main(m *testing.M) {
	dockertest.Main(m, func(d *dockertest.Daemon, why string) { private.d, private.skip = d, why })
}

// DockerRunner is the docker context on Main's dockerd (it skips without one).
func DockerRunner(t *testing.T) contexts.Context { return Runner(t, private.d, private.skip) }

// Oracle is one provider's oracle suite: the official SDK runs Script
// against a replica (Env points it there), Go runs the same scenarios
// with the provider, and both must give Want, the expected outcomes.
type Oracle[O any] struct {
	Package, Script string
	Env             []string
	Want            O
	Go              func(t *testing.T) O
	// Calls is the replica's call log; each of Covers must be in it, or
	// the scenarios did not exercise that route.
	Calls  func() []string
	Covers []string
	// Left lists what the scenarios left behind (nothing, or a leak).
	Left func() []string
}

// SDK runs the script and decodes its outcomes.
func (o Oracle[O]) SDK(t *testing.T) (O, error) {
	var got O
	out, err := Node(t, o.Script, o.Env...)
	if err != nil {
		return got, err
	}
	return got, json.Unmarshal(out, &got)
}

// Agree is TestOracle_SDKAgrees: the SDK's outcomes are the expected
// ones, and the Go provider's equal the SDK's.
func (o Oracle[O]) Agree(t *testing.T) {
	NeedOracle(t, o.Package)
	start := time.Now()
	got, err := o.SDK(t)
	if err != nil {
		calls := o.Calls()
		t.Fatalf("%v\nlast calls: %q", err, calls[max(0, len(calls)-8):])
	}
	t.Logf("the SDK's scenarios took %v", time.Since(start).Round(time.Millisecond))
	if d := cmp.Diff(o.Want, got); d != "" {
		t.Errorf("the SDK's outcomes differ from the expected (-want +sdk):\n%s", d)
	}
	if left := o.Left(); len(left) != 0 {
		t.Errorf("the SDK's scenarios left sandboxes: %q", left)
	}
	if d := cmp.Diff(got, o.Go(t)); d != "" {
		t.Errorf("the Go provider differs from the SDK (-sdk +go):\n%s", d)
	}
	if left := o.Left(); len(left) != 0 {
		t.Errorf("the Go side's scenarios left sandboxes: %q", left)
	}
	calls := strings.Join(o.Calls(), "\n")
	for _, want := range o.Covers {
		if !strings.Contains(calls, want) {
			t.Errorf("no %q among the calls: the scenarios did not cover it", want)
		}
	}
}

// NegativeControl is TestOracle_NegativeControl: against a replica
// that renames one field, the SDK must fail or disagree.
func (o Oracle[O]) NegativeControl(t *testing.T) {
	NeedOracle(t, o.Package)
	got, err := o.SDK(t)
	if err != nil && strings.Contains(err.Error(), "MODULE_NOT_FOUND") {
		t.Fatalf("the SDK did not run: %v", err)
	}
	diff := cmp.Diff(o.Want, got)
	if err == nil && diff == "" {
		t.Fatal("the oracle did not notice the mutated replica")
	}
	why := strings.TrimSpace(diff)
	if err != nil {
		why = err.Error()
	}
	t.Logf("noticed, as it must: %s", strings.SplitN(why, "\n", 2)[0])
}

// RenameExitCode is the negative control's mutation.
func RenameExitCode(b []byte) []byte {
	return []byte(strings.ReplaceAll(string(b), `"exitCode":`, `"exit_code_renamed":`))
}
