package bwrap

import (
	"slices"
	"strings"
	"testing"
)

// TestDecodeStatus: bwrap's --json-status-fd stream as bubblewrap writes
// it (one JSON document per line: child-pid when the sandbox's init is
// cloned, exit-code when the command it started ends). No exit-code means
// the command never started, which exec turns into a setup failure (127);
// a stream cut short or followed by junk keeps what came before.
func TestDecodeStatus(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		pid    int
		exit   int // -1: none
		onPids []int
	}{
		{"command ran", `{ "child-pid": 4242 }` + "\n" + `{ "exit-code": 3 }` + "\n", 4242, 3, []int{4242}},
		{"exit 0", `{"child-pid": 7}{"exit-code": 0}`, 7, 0, []int{7}},
		{"setup failed after clone", `{ "child-pid": 4242 }` + "\n", 4242, -1, []int{4242}},
		{"nothing: bwrap failed before cloning", "", 0, -1, nil},
		{"cut mid-document", `{ "child-pid": 5 }` + "\n" + `{ "exit-co`, 5, -1, []int{5}},
		{"junk after", `{ "child-pid": 5 }{ "exit-code": 1 }garbage{ "exit-code": 9 }`, 5, 1, []int{5}},
		{"unknown keys ignored", `{ "child-pid": 5, "cgroup-namespace": 4026531835 }{ "exit-code": 2, "extra": true }`, 5, 2, []int{5}},
		{"a null exit-code is no exit-code", `{ "child-pid": 5 }{ "exit-code": null }`, 5, -1, []int{5}},
		{"wrong type stops", `{ "child-pid": "5" }{ "exit-code": 1 }`, 0, -1, nil},
	}
	for _, tt := range tests {
		var pids []int
		st := decodeStatus(strings.NewReader(tt.in), func(p int) { pids = append(pids, p) })
		exit := -1
		if st.exitCode != nil {
			exit = *st.exitCode
		}
		if st.childPid != tt.pid || exit != tt.exit || !slices.Equal(pids, tt.onPids) {
			t.Errorf("%s: decodeStatus = pid %d exit %d (told %v); want pid %d exit %d (told %v)",
				tt.name, st.childPid, exit, pids, tt.pid, tt.exit, tt.onPids)
		}
	}
}
