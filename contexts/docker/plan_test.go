package docker

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zsandbox/zsandbox/contexts"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The container every handle gets, as the JSON the Engine receives; the
// seccomp profile is checked apart (it is the project's, byte for byte).
func TestCreatePlanGolden(t *testing.T) {
	cases := map[string]contexts.Options{
		"defaults": {},
		"workspace-limits": {Image: "python:3.12", Mounts: []contexts.Mount{{Source: "/home/u/proj", Target: "/workspace"}, {Source: "/data", Target: "/data", ReadOnly: true}},
			Limits: contexts.Limits{MemoryMiB: 512, CPUs: 1.5, Pids: 256}},
		"network-allow-user-ports": {Network: contexts.NetworkAllow, User: "1000:1000",
			Ports: []contexts.Port{{ContainerPort: 3000}, {HostIP: "0.0.0.0", HostPort: 8080, ContainerPort: 80, Proto: "udp"}}},
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := createPlan("d-0123456789ab", o, "/workspace", []string{"CI=1"}, 1001, 1002)
			if err != nil {
				t.Fatal(err)
			}
			seccomp := p.Host.SecurityOpt[1]
			want, _ := compactJSON(mustSeccomp(t))
			if seccomp != "seccomp="+want {
				t.Errorf("SecurityOpt[1] is not the project's seccomp profile")
			}
			p.Host.SecurityOpt[1] = "seccomp=<profiles/seccomp.json>"
			got, _ := json.MarshalIndent(p, "", "  ")
			golden := filepath.Join("testdata", name+".json")
			if *update {
				os.WriteFile(golden, append(got, '\n'), 0o644)
			}
			wantJSON, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(wantJSON), string(got)+"\n"); diff != "" {
				t.Errorf("createPlan(%s) mismatch (-want +got):\n%s", name, diff)
			}
		})
	}
}

func mustSeccomp(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../profiles/seccomp.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPortsNeedNetwork(t *testing.T) {
	_, err := createPlan("d-1", contexts.Options{Ports: []contexts.Port{{ContainerPort: 80}}}, "/workspace", nil, 0, 0)
	if !errors.Is(err, contexts.ErrUsage) {
		t.Errorf("ports with the network off = %v, want a usage error", err)
	}
}
