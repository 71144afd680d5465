//go:build linux

package e2b

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/e2b/e2btest"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

func spawnT(t *testing.T, c *Context, cfg contexts.SpawnConfig) *Handle {
	t.Helper()
	return remotetest.Spawn(t, c, cfg).(*Handle)
}

func states(s *e2btest.Server) map[string]string {
	out := map[string]string{}
	for _, sb := range s.Sandboxes() {
		out[sb.ID] = sb.State
	}
	return out
}

var execT = remotetest.Exec

// Pause keeps the sandbox and its files; --sandbox ID resumes it; an
// attached sandbox is never killed or paused, unless OwnAttached.
func TestReplica_PauseResumeAndAttachedNeverKilled(t *testing.T) {
	s := replica(t, e2btest.Options{})
	h := spawnT(t, provider(t, s, Options{OnDestroy: "pause", Metadata: map[string]string{"run": "r1"}}),
		contexts.SpawnConfig{Env: []string{"FROM_SPAWN=1"}})
	if err := h.WriteFile(ctxT(t), "kept.txt", []byte("state"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.Destroy(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	id := h.Kept()
	if got := states(s); id == "" || got[id] != "paused" {
		t.Fatalf("after pause: Kept()=%q, sandboxes %v; want it paused", id, got)
	}
	if sb := s.Sandboxes()[0]; sb.Metadata["run"] != "r1" || sb.Env["FROM_SPAWN"] != "1" {
		t.Errorf("metadata %v env %v: want run=r1 and FROM_SPAWN=1 sent at create", sb.Metadata, sb.Env)
	}

	for _, own := range []bool{false, true} {
		a := spawnT(t, provider(t, s, Options{SandboxID: id, OwnAttached: own}), contexts.SpawnConfig{})
		if got := states(s)[id]; got != "running" {
			t.Fatalf("connect did not resume: %q", got)
		}
		if r := execT(t, a, "cat kept.txt; echo \" $FROM_SPAWN\""); string(r.Stdout) != "state 1\n" {
			t.Errorf("resumed sandbox: %q, want the file and the env back", r.Stdout)
		}
		if err := a.Destroy(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		_, exists := states(s)[id]
		if exists == own {
			t.Errorf("OwnAttached=%v: after Destroy the sandbox exists=%v", own, exists)
		}
	}
	if _, err := provider(t, s, Options{SandboxID: id}).Spawn(ctxT(t), contexts.SpawnConfig{}); !errors.Is(err, contexts.ErrNotFound) {
		t.Errorf("attach to a killed sandbox = %v, want ErrNotFound", err)
	}
}

func TestReplica_LeaveMakesNoCall(t *testing.T) {
	s := replica(t, e2btest.Options{})
	h := spawnT(t, provider(t, s, Options{OnDestroy: "leave"}), contexts.SpawnConfig{})
	before := len(s.Calls())
	if err := h.Destroy(ctxT(t)); err != nil || h.Kept() == "" {
		t.Fatalf("Destroy = %v, Kept %q", err, h.Kept())
	}
	if calls := s.Calls()[before:]; len(calls) != 0 || states(s)[h.Kept()] != "running" {
		t.Errorf("leave: calls %v, state %v; want none and running", calls, states(s))
	}
}

// The seeds' trap: an invalid template returns an id but never boots.
func TestReplica_InvalidTemplateHangBecomesError(t *testing.T) {
	s := replica(t, e2btest.Options{})
	_, err := provider(t, s, Options{Template: "no-such-template", ReadinessTimeout: 1500 * 1e6}).Spawn(ctxT(t), contexts.SpawnConfig{})
	if !errors.Is(err, contexts.ErrUnavailable) || !strings.Contains(contexts.Hint(err), "E2B_TEMPLATE") {
		t.Fatalf("Spawn = %v (hint %q); want ErrUnavailable naming E2B_TEMPLATE", err, contexts.Hint(err))
	}
	if got := states(s); len(got) != 0 {
		t.Errorf("the sandbox created for it was left behind: %v", got)
	}
}

func TestReplica_SlowBootWaited(t *testing.T) {
	s := replica(t, e2btest.Options{BootDelay: 1500 * 1e6})
	h := spawnT(t, provider(t, s, Options{}), contexts.SpawnConfig{})
	defer h.Destroy(ctxT(t))
	if r := execT(t, h, "echo up"); string(r.Stdout) != "up\n" {
		t.Errorf("after slow boot: %q", r.Stdout)
	}
}

func TestReplica_Pregame(t *testing.T) {
	s := replica(t, e2btest.Options{})
	dir := t.TempDir()
	good := filepath.Join(dir, "setup.sh")
	os.WriteFile(good, []byte("echo ready > /tmp/pregame-ran\n"), 0o644)
	c, err := FromOptions(contexts.Options{Extra: map[string]string{OptPregame: good}})
	if err != nil {
		t.Fatal(err)
	}
	c.opts.APIURL, c.opts.SandboxURL, c.opts.APIKey = s.URL, s.URL, testKey
	c.api = &api{base: s.URL, key: testKey, http: http.DefaultClient}
	h := spawnT(t, c, contexts.SpawnConfig{})
	if r := execT(t, h, "cat /tmp/pregame-ran /tmp/setup.sh"); !strings.HasPrefix(string(r.Stdout), "ready\necho ready") {
		t.Errorf("pregame did not run before the first command, or not from /tmp/setup.sh: %q", r.Stdout)
	}
	id := h.sandbox
	h.Destroy(ctxT(t))

	bad := &Pregame{Name: "fail.sh", Content: []byte("#!/bin/sh\necho broken >&2\nexit 3\n")}
	_, err = provider(t, s, Options{Pregame: bad}).Spawn(ctxT(t), contexts.SpawnConfig{})
	if err == nil || !strings.Contains(err.Error(), "exited 3") || !strings.Contains(err.Error(), "broken") {
		t.Fatalf("failing pregame: %v; want exit 3 and its stderr", err)
	}
	if got := states(s); len(got) != 0 {
		t.Errorf("a created sandbox survived a failed pregame: %v", got)
	}
	// An attached sandbox is not ours: a failed pregame leaves it.
	kept := spawnT(t, provider(t, s, Options{OnDestroy: "leave"}), contexts.SpawnConfig{})
	kept.Destroy(ctxT(t))
	if _, err := provider(t, s, Options{SandboxID: kept.Kept(), Pregame: bad}).Spawn(ctxT(t), contexts.SpawnConfig{}); err == nil {
		t.Fatal("failing pregame on an attached sandbox: no error")
	}
	if states(s)[kept.Kept()] != "running" {
		t.Errorf("a failed pregame killed an attached sandbox: %v", states(s))
	}
	_ = id
}

// TTL expiry kills the sandbox: the next command fails clearly.
func TestReplica_TTLExpiry(t *testing.T) {
	s := replica(t, e2btest.Options{})
	h := spawnT(t, provider(t, s, Options{}), contexts.SpawnConfig{})
	s.Expire(h.sandbox)
	_, err := h.Exec(ctxT(t), contexts.Cmd{Shell: "true"})
	if !errors.Is(err, contexts.ErrUnavailable) || !strings.Contains(contexts.Hint(err), "past its timeout") {
		t.Errorf("Exec after TTL expiry = %v (hint %q)", err, contexts.Hint(err))
	}
	if err := h.Destroy(ctxT(t)); err != nil {
		t.Errorf("Destroy of an expired sandbox = %v, want nil (already gone)", err)
	}
}

func TestReplica_Faults(t *testing.T) {
	s := replica(t, e2btest.Options{})
	wrong := "e2b_wrong_key_fedcba9876543210"
	_, err := provider(t, s, Options{APIKey: wrong}).Spawn(ctxT(t), contexts.SpawnConfig{})
	if !errors.Is(err, contexts.ErrUnavailable) || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error()+contexts.Hint(err), wrong) {
		t.Errorf("401: %v", err)
	}
	for _, f := range []struct {
		fault e2btest.Fault
		want  error
	}{
		{e2btest.Fault{Method: "POST", Path: "/sandboxes", Status: 500}, contexts.ErrUnavailable},
		{e2btest.Fault{Method: "POST", Path: "/sandboxes", Status: 409}, contexts.ErrUnavailable},
		{e2btest.Fault{Method: "POST", Path: "/sandboxes", Status: 429, Times: 3}, contexts.ErrUnavailable},
	} {
		if f.fault.Times == 0 {
			f.fault.Times = 1
		}
		s.Inject(f.fault)
		if _, err := provider(t, s, Options{}).Spawn(ctxT(t), contexts.SpawnConfig{}); !errors.Is(err, f.want) || !strings.Contains(err.Error(), http.StatusText(f.fault.Status)) {
			t.Errorf("%d: %v, want %v naming the status", f.fault.Status, err, f.want)
		}
	}
	// A 429 that clears is retried.
	s.Inject(e2btest.Fault{Method: "POST", Path: "/sandboxes", Status: 429, Times: 1})
	h := spawnT(t, provider(t, s, Options{}), contexts.SpawnConfig{})
	defer h.Destroy(ctxT(t))
	// A proxy's plain 502 in front of envd.
	s.Inject(e2btest.Fault{Path: "/process.Process/Start", Status: 502, Plain: true, Body: "<html>502 Bad Gateway</html>", Times: 1})
	if _, err := h.Exec(ctxT(t), contexts.Cmd{Shell: "true"}); !errors.Is(err, contexts.ErrUnavailable) || !strings.Contains(err.Error(), "502") {
		t.Errorf("proxy 502: %v", err)
	}
	// A stream cut mid-way is an error, never a silent short output.
	s.CutStreams(3)
	if r, err := h.Exec(ctxT(t), contexts.Cmd{Shell: "echo a; sleep 0.2; echo b; sleep 0.2; echo c; sleep 0.2; echo d"}); !errors.Is(err, contexts.ErrUnavailable) {
		t.Errorf("cut stream: %v, %+v; want ErrUnavailable", err, r)
	}
	s.CutStreams(0)
	if r := execT(t, h, "echo ok"); string(r.Stdout) != "ok\n" {
		t.Errorf("after the faults: %q", r.Stdout)
	}
	// envd 404 on a file is ErrNotFound.
	if _, err := h.ReadFile(ctxT(t), "/nope"); !errors.Is(err, contexts.ErrNotFound) {
		t.Errorf("missing file: %v", err)
	}
}

// The API key is in no State, error or hint.
func TestReplica_KeyNeverPrinted(t *testing.T) {
	s := replica(t, e2btest.Options{})
	h := spawnT(t, provider(t, s, Options{}), contexts.SpawnConfig{})
	defer h.Destroy(ctxT(t))
	b, _ := json.Marshal(h.State())
	if strings.Contains(string(b), testKey) {
		t.Errorf("State carries the API key: %s", b)
	}
	s.Inject(e2btest.Fault{Path: "/sandboxes", Status: 500, Times: 1})
	_, err := provider(t, s, Options{}).Spawn(ctxT(t), contexts.SpawnConfig{})
	if err == nil || strings.Contains(err.Error()+contexts.Hint(err), testKey) {
		t.Errorf("error %v", err)
	}
	if _, err := New(Options{APIKey: "", APIURL: s.URL}); err != nil {
		t.Fatal(err)
	}
}
