//go:build linux

package daytona

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/daytona/daytonatest"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

func spawnT(t *testing.T, c *Context, cfg contexts.SpawnConfig) *Handle {
	t.Helper()
	return remotetest.Spawn(t, c, cfg).(*Handle)
}

func states(s *daytonatest.Server) map[string]string {
	out := map[string]string{}
	for _, sb := range s.Sandboxes() {
		out[sb.ID] = sb.State
	}
	return out
}

var execT = remotetest.Exec

// Every onDestroy value, on an owned sandbox, and what the replica's
// state machine then says.
func TestReplica_OnDestroy(t *testing.T) {
	s := replica(t, daytonatest.Options{})
	for _, c := range []struct{ onDestroy, want string }{
		{"delete", ""}, {"kill", ""}, {"stop", "stopped"}, {"pause", "stopped"}, {"archive", "archived"}, {"leave", "started"},
	} {
		h := spawnT(t, provider(t, s, Options{OnDestroy: c.onDestroy}), contexts.SpawnConfig{})
		if err := h.Destroy(ctxT(t)); err != nil {
			t.Fatalf("%s: %v", c.onDestroy, err)
		}
		if got := states(s)[h.sandbox]; got != c.want {
			t.Errorf("onDestroy %s: state %q, want %q", c.onDestroy, got, c.want)
		}
		if (c.want != "") != (h.Kept() == h.sandbox) {
			t.Errorf("onDestroy %s: Kept() = %q", c.onDestroy, h.Kept())
		}
	}
}

// An attached sandbox is never stopped or deleted unless OwnAttached; a
// stopped one is started by attaching; env is baked in and re-sent.
func TestReplica_AttachAndOwnership(t *testing.T) {
	s := replica(t, daytonatest.Options{})
	h := spawnT(t, provider(t, s, Options{OnDestroy: "stop", Env: map[string]string{"BAKED": "b1"}}), contexts.SpawnConfig{})
	h.WriteFile(ctxT(t), "kept.txt", []byte("disk"), 0o644)
	h.Destroy(ctxT(t))
	id := h.Kept()
	if sb := s.Sandboxes()[0]; sb.Env["BAKED"] != "b1" || !sb.NetworkBlockAll {
		t.Errorf("env %v networkBlockAll %v: want the env baked in at create and the network blocked by default", sb.Env, sb.NetworkBlockAll)
	}
	open := spawnT(t, provider(t, s, Options{Network: contexts.NetworkAllow}), contexts.SpawnConfig{})
	for _, sb := range s.Sandboxes() {
		if sb.ID == open.sandbox && sb.NetworkBlockAll {
			t.Error("--network allow still created the sandbox with networkBlockAll")
		}
	}
	open.Destroy(ctxT(t))
	for _, own := range []bool{false, true} {
		a := spawnT(t, provider(t, s, Options{SandboxID: id, OwnAttached: own, Env: map[string]string{"BAKED": "b2"}}), contexts.SpawnConfig{})
		if r := execT(t, a, `cat kept.txt; echo " $BAKED"`); string(r.Stdout) != "disk b2\n" {
			t.Errorf("attached: %q, want the disk kept and the provider env re-sent", r.Stdout)
		}
		a.Destroy(ctxT(t))
		_, exists := states(s)[id]
		if exists == own {
			t.Errorf("OwnAttached=%v: the sandbox exists=%v after Destroy", own, exists)
		}
	}
	if _, err := provider(t, s, Options{SandboxID: id}).Spawn(ctxT(t), contexts.SpawnConfig{}); !errors.Is(err, contexts.ErrNotFound) {
		t.Errorf("attach to a deleted sandbox: %v", err)
	}
}

// An attached sandbox from another snapshot is deleted and recreated —
// only when OwnAttached allows deleting it.
func TestReplica_SnapshotMismatch(t *testing.T) {
	s := replica(t, daytonatest.Options{})
	h := spawnT(t, provider(t, s, Options{Snapshot: "snap-a", OnDestroy: "leave"}), contexts.SpawnConfig{})
	h.Destroy(ctxT(t))
	if _, err := provider(t, s, Options{SandboxID: h.Kept(), Snapshot: "snap-b"}).Spawn(ctxT(t), contexts.SpawnConfig{}); !errors.Is(err, contexts.ErrUsage) {
		t.Errorf("mismatch without ownAttached: %v, want ErrUsage", err)
	}
	n := spawnT(t, provider(t, s, Options{SandboxID: h.Kept(), Snapshot: "snap-b", OwnAttached: true}), contexts.SpawnConfig{})
	defer n.Destroy(ctxT(t))
	if got := s.Sandboxes(); len(got) != 1 || got[0].ID == h.Kept() || got[0].Snapshot != "snap-b" {
		t.Errorf("after recreate: %+v", got)
	}
}

// The toolbox is not ready for the first calls and the sandbox is
// creating for a while: the readiness probe waits; with the probe
// disabled the first command fails instead; a deadline that passes
// deletes the sandbox it created.
func TestReplica_Readiness(t *testing.T) {
	s := replica(t, daytonatest.Options{ToolboxNotReady: 3, BootDelay: 300 * 1e6})
	h := spawnT(t, provider(t, s, Options{}), contexts.SpawnConfig{})
	if r := execT(t, h, "echo ready"); string(r.Stdout) != "ready\n" {
		t.Errorf("%q", r.Stdout)
	}
	h.Destroy(ctxT(t))
	off := 0
	if _, err := provider(t, s, Options{ReadinessTimeoutSeconds: &off}).Spawn(ctxT(t), contexts.SpawnConfig{}); err == nil {
		t.Error("probe disabled: the not-ready toolbox answered the first call")
	}
	never := replica(t, daytonatest.Options{ToolboxNotReady: 1 << 30})
	one := 1
	_, err := provider(t, never, Options{ReadinessTimeoutSeconds: &one}).Spawn(ctxT(t), contexts.SpawnConfig{})
	if !errors.Is(err, contexts.ErrUnavailable) || !strings.Contains(err.Error(), "readinessTimeoutSeconds") {
		t.Errorf("readiness deadline: %v", err)
	}
	if got := states(never); len(got) != 0 {
		t.Errorf("a sandbox that never got ready was left: %v", got)
	}
}

func TestReplica_Pregame(t *testing.T) {
	s := replica(t, daytonatest.Options{})
	good := filepath.Join(t.TempDir(), "setup.sh")
	os.WriteFile(good, []byte("echo ready > /tmp/pregame-ran\n"), 0o644)
	c, _ := FromOptions(contexts.Options{Extra: map[string]string{OptPregame: good}})
	c.opts.APIURL, c.opts.APIKey = s.APIURL(), testKey
	c, _ = New(c.opts)
	h := spawnT(t, c, contexts.SpawnConfig{})
	if r := execT(t, h, "cat /tmp/pregame-ran /tmp/setup.sh"); !strings.HasPrefix(string(r.Stdout), "ready\necho ready") {
		t.Errorf("pregame: %q", r.Stdout)
	}
	h.Destroy(ctxT(t))
	bad := &Pregame{Name: "fail.sh", Content: []byte("echo broken\nexit 3\n")}
	if _, err := provider(t, s, Options{Pregame: bad}).Spawn(ctxT(t), contexts.SpawnConfig{}); err == nil || !strings.Contains(err.Error(), "exited 3") || !strings.Contains(err.Error(), "broken") {
		t.Errorf("failing pregame: %v", err)
	}
	if got := states(s); len(got) != 0 {
		t.Errorf("a created sandbox survived a failed pregame: %v", got)
	}
	kept := spawnT(t, provider(t, s, Options{OnDestroy: "leave"}), contexts.SpawnConfig{})
	kept.Destroy(ctxT(t))
	if _, err := provider(t, s, Options{SandboxID: kept.Kept(), Pregame: bad}).Spawn(ctxT(t), contexts.SpawnConfig{}); err == nil {
		t.Error("failing pregame on an attached sandbox: no error")
	}
	if states(s)[kept.Kept()] != "started" {
		t.Errorf("a failed pregame removed an attached sandbox: %v", states(s))
	}
}

func TestReplica_FaultsAndKey(t *testing.T) {
	s := replica(t, daytonatest.Options{})
	wrong := "dtn_wrong_key_fedcba9876543210"
	_, err := provider(t, s, Options{APIKey: wrong}).Spawn(ctxT(t), contexts.SpawnConfig{})
	if !errors.Is(err, contexts.ErrUnavailable) || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error()+contexts.Hint(err), wrong) {
		t.Errorf("401: %v", err)
	}
	for _, status := range []int{409, 429, 500, 503} {
		s.Inject(daytonatest.Fault{Method: "POST", Path: "/api/sandbox", Status: status})
		if _, err := provider(t, s, Options{}).Spawn(ctxT(t), contexts.SpawnConfig{}); err == nil || !strings.Contains(err.Error(), "create sandbox") {
			t.Errorf("%d on create: %v", status, err)
		}
	}
	h := spawnT(t, provider(t, s, Options{}), contexts.SpawnConfig{})
	defer h.Destroy(ctxT(t))
	s.Inject(daytonatest.Fault{Path: "/toolbox/", Status: 502, Plain: true, Body: "<html>502 Bad Gateway</html>"})
	if _, err := h.Exec(ctxT(t), contexts.Cmd{Shell: "true"}); !errors.Is(err, contexts.ErrUnavailable) || !strings.Contains(err.Error(), "502") {
		t.Errorf("proxy 502: %v", err)
	}
	s.SetLatency(50 * 1e6)
	if r := execT(t, h, "echo slow"); string(r.Stdout) != "slow\n" {
		t.Errorf("with latency: %q", r.Stdout)
	}
	s.SetLatency(0)
	b, _ := json.Marshal(h.State())
	if strings.Contains(string(b), testKey) {
		t.Errorf("State carries the key: %s", b)
	}
	// The generated client drops an empty file from its upload form.
	if err := h.WriteFile(ctxT(t), "sub/empty", nil, 0o644); err != nil {
		t.Fatalf("empty WriteFile: %v", err)
	}
	if b, err := h.ReadFile(ctxT(t), "sub/empty"); err != nil || len(b) != 0 {
		t.Errorf("empty file: %q %v", b, err)
	}
	if _, err := h.ReadFile(ctxT(t), "/nope"); !errors.Is(err, contexts.ErrNotFound) {
		t.Errorf("missing file: %v", err)
	}
}

// The seeds' result normalisation and parameter merging, as pure
// functions.
func TestNormalizeAndResolve(t *testing.T) {
	str := func(s string) *string { return &s }
	three := 3
	for _, c := range []struct {
		in   ExecuteResponse
		want contexts.Result
	}{
		{ExecuteResponse{Result: str("a")}, contexts.Result{Stdout: []byte("a")}},
		{ExecuteResponse{ExitCode: &three, Artifacts: &struct {
			Stdout *string `json:"stdout,omitempty"`
		}{Stdout: str("b")}}, contexts.Result{Stdout: []byte("b"), ExitCode: 3}},
		{ExecuteResponse{}, contexts.Result{}},
	} {
		if d := cmp.Diff(c.want, NormalizeExecResult(c.in)); d != "" {
			t.Errorf("NormalizeExecResult(%+v): %s", c.in, d)
		}
	}
	if ResolveEnv(nil, nil) != nil {
		t.Error("ResolveEnv of nothing is not nil")
	}
	if got := ResolveEnv(map[string]string{"A": "opt", "B": "opt"}, map[string]string{"B": "spawn"}); !cmp.Equal(got, map[string]string{"A": "opt", "B": "spawn"}) {
		t.Errorf("ResolveEnv: %v", got)
	}
	if p, _ := ResolveCreateParams(nil, Options{}, nil); p != nil {
		t.Errorf("nothing set: %+v, want nil", p)
	}
	p, err := ResolveCreateParams(map[string]any{"snapshot": "spawn-snap", "apiKey": "leak", "apiUrl": "x", "env": map[string]string{"S": "2"}},
		Options{Snapshot: "opt-snap", Target: "eu", Env: map[string]string{"O": "1", "S": "1"}, Resources: Resources{CPU: 2}}, map[string]string{"V": "3"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	var got map[string]any
	json.Unmarshal(b, &got)
	want := map[string]any{"snapshot": "spawn-snap", "target": "eu", "cpu": 2.0, "env": map[string]any{"O": "1", "S": "2", "V": "3"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ResolveCreateParams (-want +got):\n%s", d)
	}
}
