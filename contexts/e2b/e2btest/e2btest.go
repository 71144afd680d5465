// Package e2btest is a loopback replica of E2B, importable like httptest:
// the control plane's REST routes (create, connect, info, list, timeout,
// pause, kill) and every sandbox's envd (Connect RPC process.Process and
// filesystem.Filesystem with the JSON codec, and HTTP /files, /health) on
// one server. Each sandbox is a handle of a real execution context (the
// docker context in the tests), so commands run for real: exit codes,
// stderr, signals, stdin and big outputs are the kernel's, not canned.
//
// It keeps the service's state machine: running ⇄ paused, connect resumes,
// the TTL kills (or pauses, with autoPause) a sandbox, and an envd request
// to a sandbox that is paused or gone meets the proxy's plain 502. Faults
// inject latency, error statuses, a proxy's non-Connect 502, streams cut
// mid-way, slow boot, and the seeds' invalid-template hang (a template not
// in Templates is "created" but its envd never answers).
//
// What it does not reproduce: envd reports a death by signal as exit code
// -1 with a status; the replica reports the runner's 128+N.
package e2btest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"connectrpc.com/connect"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/e2b/internal/wire"
	"github.com/zsandbox/zsandbox/contexts/internal/replica"
)

// Home is the sandbox user's home, where envd starts commands by default.
const Home = "/home/user"

// EnvdVersion is the envd version the replica reports (stdin flag,
// CloseStdin and octet-stream uploads are all past their gates).
const EnvdVersion = "0.5.8"

// bashShim installs /bin/bash as sh where the runner's image has no bash.
const bashShim = `[ -x /bin/bash ] || { printf '#!/bin/sh\nexec /bin/sh "$@"\n' > /bin/bash && chmod 755 /bin/bash; }`

// Options configures a Server.
type Options struct {
	// Runner makes one handle per sandbox; its commands are the sandbox's.
	Runner contexts.Context
	// APIKey is the only key the control plane accepts.
	APIKey string
	// Templates that boot; any other template id is the invalid-template
	// trap: created, but its envd never answers. Default: base.
	Templates []string
	// BootDelay: envd answers 502 for this long after create or resume.
	BootDelay time.Duration
	// Mutate, when set, rewrites every Connect message envd sends: the
	// oracle suite's negative control (it must then fail).
	Mutate func([]byte) []byte
}

// codec is the JSON codec, with the negative control's mutation.
type codec struct {
	wire.JSONCodec
	mutate func([]byte) []byte
}

func (c codec) Marshal(v any) ([]byte, error) {
	b, err := c.JSONCodec.Marshal(v)
	if err == nil && c.mutate != nil {
		b = c.mutate(b)
	}
	return b, err
}

// Fault is an injected failure (see replica.Fault).
type Fault = replica.Fault

// Server is a running replica.
type Server struct {
	URL  string // control plane and envd (route envd by header or host)
	opts Options
	http *httptest.Server

	// Faults: Inject, SetLatency and Calls.
	*replica.Faults

	mu        sync.Mutex
	sandboxes map[string]*sandbox
	cutAfter  int // cut Start streams after this many events (0: never)
}

// NewServer starts a replica on 127.0.0.1.
func NewServer(opts Options) *Server {
	if len(opts.Templates) == 0 {
		opts.Templates = []string{"base"}
	}
	s := &Server{opts: opts, sandboxes: map[string]*sandbox{}, Faults: &replica.Faults{}}
	s.http = httptest.NewServer(s.routes())
	s.URL = s.http.URL
	return s
}

// Close kills every sandbox and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	all := make([]*sandbox, 0, len(s.sandboxes))
	for _, sb := range s.sandboxes {
		all = append(all, sb)
	}
	s.sandboxes = map[string]*sandbox{}
	s.mu.Unlock()
	for _, sb := range all {
		sb.kill()
	}
	s.http.CloseClientConnections()
	s.http.Close()
}

// CutStreams drops the connection of every Start stream after n events.
func (s *Server) CutStreams(n int) { s.mu.Lock(); s.cutAfter = n; s.mu.Unlock() }

// SandboxInfo is what a test can see of a sandbox.
type SandboxInfo struct {
	ID, Template, State string
	Metadata            map[string]string
	Env                 map[string]string
}

// Sandboxes lists the sandboxes that exist (running or paused).
func (s *Server) Sandboxes() []SandboxInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SandboxInfo
	for _, sb := range s.sandboxes {
		sb.mu.Lock()
		out = append(out, SandboxInfo{ID: sb.id, Template: sb.template, State: sb.state, Metadata: sb.metadata, Env: sb.env})
		sb.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b SandboxInfo) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Expire runs the TTL of sandbox id out now.
func (s *Server) Expire(id string) {
	if sb := s.get(id); sb != nil {
		s.expire(sb)
	}
}

func (s *Server) get(id string) *sandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sandboxes[id]
}

func (s *Server) remove(id string) {
	s.mu.Lock()
	delete(s.sandboxes, id)
	s.mu.Unlock()
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, wire.APIError{Code: status, Message: msg})
}

var writeJSON = replica.WriteJSON

func newID(prefix string, n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// sandboxIDOf routes an envd request: the E2b-Sandbox-Id header (the
// shared sandbox.<domain> host), else a host of the form
// 49983-<id>.<domain>.
func sandboxIDOf(r *http.Request) string {
	if id := r.Header.Get(wire.HeaderSandboxID); id != "" {
		return id
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	if rest, ok := strings.CutPrefix(host, wire.EnvdPort+"-"); ok {
		id, _, _ := strings.Cut(rest, ".")
		return id
	}
	return ""
}

func isEnvdPath(p string) bool {
	return strings.HasPrefix(p, "/process.Process/") || strings.HasPrefix(p, "/filesystem.Filesystem/") ||
		p == "/files" || p == "/health"
}

// Routes lists every HTTP route the replica serves ("METHOD path"; the
// Connect procedures are wire.Proc*), for the contract test.
func Routes() []string {
	return []string{"POST /sandboxes", "POST /v2/sandboxes", "GET /sandboxes/{sandboxID}", "GET /v2/sandboxes",
		"POST /sandboxes/{sandboxID}/connect", "POST /v2/sandboxes/{sandboxID}/connect", "POST /sandboxes/{sandboxID}/timeout",
		"POST /sandboxes/{sandboxID}/pause", "DELETE /sandboxes/{sandboxID}", "GET /files", "POST /files", "GET /health"}
}

func (s *Server) routes() http.Handler {
	api := http.NewServeMux()
	api.HandleFunc("POST /sandboxes", s.create)
	api.HandleFunc("POST /v2/sandboxes", s.create)
	api.HandleFunc("GET /sandboxes/{id}", s.info)
	api.HandleFunc("GET /v2/sandboxes", s.list)
	api.HandleFunc("POST /sandboxes/{id}/connect", s.connect)
	api.HandleFunc("POST /v2/sandboxes/{id}/connect", s.connect) // the SDK's; not yet in the public spec
	api.HandleFunc("POST /sandboxes/{id}/timeout", s.setTimeout)
	api.HandleFunc("POST /sandboxes/{id}/pause", s.pause)
	api.HandleFunc("DELETE /sandboxes/{id}", s.delete)
	envd := s.envdRoutes()
	return s.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isEnvdPath(r.URL.Path) {
			s.serveEnvd(envd, w, r)
			return
		}
		if r.Header.Get(wire.HeaderAPIKey) != s.opts.APIKey {
			apiError(w, http.StatusUnauthorized, "Invalid API key")
			return
		}
		api.ServeHTTP(w, r)
	}), apiError)
}

// sandbox is one replica sandbox.
type sandbox struct {
	s                   *Server
	id, template, token string
	secure, autoPause   bool
	autoResume          bool
	handle              contexts.Handle

	mu       sync.Mutex
	state    string // running, paused
	metadata map[string]string
	env      map[string]string
	started  time.Time
	endAt    time.Time
	ttl      *time.Timer
	timeout  int // seconds, the last one set
	bootAt   time.Time
	procs    map[uint32]*rproc
	nextPid  uint32
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var req wire.NewSandbox
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid body: "+err.Error())
		return
	}
	if req.TemplateID == "" {
		req.TemplateID = "base"
	}
	if req.Timeout <= 0 {
		req.Timeout = 15 // the spec's default
	}
	h, err := s.opts.Runner.Spawn(r.Context(), contexts.SpawnConfig{Cwd: Home})
	if err != nil {
		apiError(w, http.StatusInternalServerError, "cannot start sandbox: "+err.Error())
		return
	}
	// E2B's templates have bash, and the SDK runs every command with
	// /bin/bash -l -c; a busybox runner gets a bash that is its sh.
	if res, err := h.Exec(r.Context(), contexts.Cmd{Shell: bashShim}); err != nil || res.ExitCode != 0 {
		h.Destroy(context.WithoutCancel(r.Context()))
		apiError(w, http.StatusInternalServerError, "cannot prepare sandbox")
		return
	}
	sb := &sandbox{s: s, id: newID("i", 10), template: req.TemplateID, token: newID("", 16), secure: req.Secure,
		autoPause: req.AutoPause, autoResume: req.AutoResume != nil && req.AutoResume.Enabled, handle: h, state: "running", metadata: req.Metadata, env: req.EnvVars,
		started: time.Now(), procs: map[uint32]*rproc{}, nextPid: 100, bootAt: time.Now().Add(s.opts.BootDelay)}
	sb.setTTL(req.Timeout)
	s.mu.Lock()
	s.sandboxes[sb.id] = sb
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, sb.wire())
}

func (sb *sandbox) wire() wire.Sandbox {
	out := wire.Sandbox{SandboxID: sb.id, TemplateID: sb.template, ClientID: "replica", EnvdVersion: EnvdVersion}
	if sb.secure {
		out.EnvdAccessToken = sb.token
	}
	return out
}

// setTTL (re)arms the sandbox's end.
func (sb *sandbox) setTTL(seconds int) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	d := time.Duration(seconds) * time.Second
	sb.timeout = seconds
	sb.endAt = time.Now().Add(d)
	if sb.ttl != nil {
		sb.ttl.Stop()
	}
	sb.ttl = time.AfterFunc(d, func() { sb.s.expire(sb) })
}

// expire is the TTL's end: kill, or pause with autoPause.
func (s *Server) expire(sb *sandbox) {
	if sb.autoPause {
		sb.mu.Lock()
		sb.state = "paused"
		sb.mu.Unlock()
		return
	}
	s.remove(sb.id)
	sb.kill()
}

func (sb *sandbox) kill() {
	sb.mu.Lock()
	if sb.ttl != nil {
		sb.ttl.Stop()
	}
	sb.mu.Unlock()
	sb.handle.Destroy(context.Background())
}

func (sb *sandbox) detail() wire.SandboxDetail {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return wire.SandboxDetail{SandboxID: sb.id, TemplateID: sb.template, ClientID: "replica",
		StartedAt: sb.started.UTC().Format(time.RFC3339), EndAt: sb.endAt.UTC().Format(time.RFC3339),
		State: sb.state, EnvdVersion: EnvdVersion, CPUCount: 2, MemoryMB: 512, DiskSizeMB: 1024, Metadata: sb.metadata,
		Lifecycle: &wire.Lifecycle{OnTimeout: map[bool]string{false: "kill", true: "pause"}[sb.autoPause], AutoResume: sb.autoResume}}
}

func (s *Server) lookup(w http.ResponseWriter, r *http.Request) *sandbox {
	sb := s.get(r.PathValue("id"))
	if sb == nil {
		apiError(w, http.StatusNotFound, "sandbox \""+r.PathValue("id")+"\" not found")
	}
	return sb
}

func (s *Server) info(w http.ResponseWriter, r *http.Request) {
	if sb := s.lookup(w, r); sb != nil {
		writeJSON(w, http.StatusOK, sb.detail())
	}
}

// list is GET /v2/sandboxes?state=running,paused&metadata=k%3Dv&k2%3Dv2.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	states := strings.Split(r.URL.Query().Get("state"), ",")
	if r.URL.Query().Get("state") == "" {
		states = []string{"running", "paused"}
	}
	want := map[string]string{}
	for _, kv := range strings.Split(r.URL.Query().Get("metadata"), "&") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			want[k] = v
		}
	}
	out := []wire.SandboxDetail{}
	for _, info := range s.Sandboxes() {
		d := s.get(info.ID).detail()
		match := slices.Contains(states, d.State)
		for k, v := range want {
			match = match && d.Metadata[k] == v
		}
		if match {
			out = append(out, d)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// connect attaches; a paused sandbox resumes (201), a running one answers
// 200. Both extend the TTL to the given timeout.
func (s *Server) connect(w http.ResponseWriter, r *http.Request) {
	sb := s.lookup(w, r)
	if sb == nil {
		return
	}
	var req wire.Timeout
	json.NewDecoder(r.Body).Decode(&req)
	if req.Timeout <= 0 {
		req.Timeout = 15
	}
	sb.mu.Lock()
	status := http.StatusOK
	if sb.state == "paused" {
		sb.state, status = "running", http.StatusCreated
		sb.bootAt = time.Now().Add(s.opts.BootDelay)
	}
	sb.mu.Unlock()
	sb.setTTL(req.Timeout)
	writeJSON(w, status, sb.wire())
}

func (s *Server) setTimeout(w http.ResponseWriter, r *http.Request) {
	sb := s.lookup(w, r)
	if sb == nil {
		return
	}
	var req wire.Timeout
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Timeout <= 0 {
		apiError(w, http.StatusBadRequest, "timeout must be a positive number of seconds")
		return
	}
	sb.setTTL(req.Timeout)
	w.WriteHeader(http.StatusNoContent)
}

// pause: 409 when already paused.
func (s *Server) pause(w http.ResponseWriter, r *http.Request) {
	sb := s.lookup(w, r)
	if sb == nil {
		return
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.state == "paused" {
		apiError(w, http.StatusConflict, "sandbox \""+sb.id+"\" is already paused")
		return
	}
	sb.state = "paused"
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	sb := s.lookup(w, r)
	if sb == nil {
		return
	}
	s.remove(sb.id)
	sb.kill()
	w.WriteHeader(http.StatusNoContent)
}

// serveEnvd is the proxy in front of every envd: an unknown, paused or
// booting sandbox gets a plain 502 (not Connect, not JSON); the invalid
// template's envd never answers.
func (s *Server) serveEnvd(envd http.Handler, w http.ResponseWriter, r *http.Request) {
	sb := s.get(sandboxIDOf(r))
	proxy502 := func(msg string) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, msg+"\n")
	}
	if sb == nil {
		proxy502("The sandbox was not found")
		return
	}
	sb.mu.Lock()
	if sb.state == "paused" && sb.autoResume {
		// Traffic resumes it (autoResume): it boots again.
		sb.state, sb.bootAt = "running", time.Now().Add(s.opts.BootDelay)
		timeout := sb.timeout
		sb.mu.Unlock()
		sb.setTTL(timeout)
		sb.mu.Lock()
	}
	state, booting := sb.state, time.Now().Before(sb.bootAt)
	sb.mu.Unlock()
	switch {
	case !slices.Contains(s.opts.Templates, sb.template):
		<-r.Context().Done() // the invalid-template hang
		return
	case state != "running":
		proxy502("The sandbox is paused")
		return
	case booting:
		proxy502("The sandbox is starting")
		return
	case sb.secure && r.Header.Get(wire.HeaderAccessToken) != sb.token:
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "invalid access token\n")
		return
	}
	envd.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sandboxKey{}, sb)))
}

type sandboxKey struct{}

func sandboxOf(ctx context.Context) *sandbox { return ctx.Value(sandboxKey{}).(*sandbox) }

func (s *Server) envdRoutes() http.Handler {
	mux := http.NewServeMux()
	codec := connect.WithCodec(codec{mutate: s.opts.Mutate})
	mux.Handle(wire.ProcStart, connect.NewServerStreamHandler(wire.ProcStart, s.start, codec))
	mux.Handle(wire.ProcConnect, connect.NewServerStreamHandler(wire.ProcConnect, s.reconnect, codec))
	mux.Handle(wire.ProcList, connect.NewUnaryHandlerSimple(wire.ProcList, s.procList, codec))
	mux.Handle(wire.ProcSendInput, connect.NewUnaryHandlerSimple(wire.ProcSendInput, s.sendInput, codec))
	mux.Handle(wire.ProcSendSignal, connect.NewUnaryHandlerSimple(wire.ProcSendSignal, s.sendSignal, codec))
	mux.Handle(wire.ProcCloseStdin, connect.NewUnaryHandlerSimple(wire.ProcCloseStdin, s.closeStdin, codec))
	mux.Handle(wire.ProcUpdate, connect.NewUnaryHandlerSimple(wire.ProcUpdate, s.update, codec))
	mux.Handle(wire.FsListDir, connect.NewUnaryHandlerSimple(wire.FsListDir, s.listDir, codec))
	mux.HandleFunc("GET /files", s.readFile)
	mux.HandleFunc("POST /files", s.writeFile)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	return mux
}

func connectErr(err error) error {
	switch {
	case errors.Is(err, contexts.ErrNotFound):
		return connect.NewError(connect.CodeNotFound, err)
	case errors.Is(err, contexts.ErrUsage):
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	return connect.NewError(connect.CodeInternal, err)
}

// errAbort cuts a connection mid-stream (net/http's own sentinel).
var errAbort = http.ErrAbortHandler

// signals are the envd Signal enum values the replica delivers.
var signals = map[string]syscall.Signal{wire.SignalTerm: syscall.SIGTERM, wire.SignalKill: syscall.SIGKILL}

// Existing lists "ID state" of every sandbox that exists: a leak check.
func (s *Server) Existing() []string {
	var out []string
	for _, sb := range s.Sandboxes() {
		out = append(out, sb.ID+" "+sb.State)
	}
	return out
}
