// Package daytonatest is a loopback replica of Daytona, importable like
// httptest: the REST API under /api (create, get, list, start, stop,
// archive, delete) and the toolbox API behind each sandbox's
// toolboxProxyUrl (/toolbox/{id}/…: process execute and sessions, files).
// Its answers are the official generated Go clients' own models
// (libs/api-client-go and libs/toolbox-api-client-go v0.190.0), whose
// decoders check the required fields; the contract test checks every route
// against the OpenAPI files shipped in those modules.
//
// Each sandbox is a handle of a real execution context (the docker context
// in the tests), so commands run for real. The state machine: a new
// sandbox is creating until BootDelay has passed (then started), stop
// makes it stopped, archive needs it stopped, start brings back a stopped
// or archived one, delete makes it gone; the toolbox answers a plain 502
// for its first ToolboxNotReady calls (it lags behind started) and for a
// sandbox that is not started. Faults come from internal/replica.
package daytonatest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	apiclient "github.com/daytonaio/daytona/libs/api-client-go"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/replica"
)

// Home is the sandbox user's home.
const Home = "/home/daytona"

// DefaultSnapshot is what a create without snapshot or image gets.
const DefaultSnapshot = "daytona-small"

// Fault is an injected failure.
type Fault = replica.Fault

// Options configures a Server.
type Options struct {
	Runner          contexts.Context
	APIKey          string
	BootDelay       time.Duration // creating → started
	ToolboxNotReady int           // the toolbox's first calls per sandbox get 502
	// Mutate, when set, rewrites every JSON answer: the oracle's
	// negative control.
	Mutate func([]byte) []byte
	// Clock is the idle rules' time (default time.Now): tests move it
	// and call Tick.
	Clock func() time.Time
}

// Server is a running replica.
type Server struct {
	URL  string // the API is URL+"/api"
	opts Options
	http *httptest.Server
	*replica.Faults

	mu        sync.Mutex
	sandboxes map[string]*sandbox
	seq       int
}

type sandbox struct {
	mu       sync.Mutex
	model    apiclient.Sandbox
	handle   contexts.Handle
	bootAt   time.Time
	notReady int
	sessions map[string]*session

	// The idle rules (minutes): autoStop 0 never; autoArchive after
	// that long stopped; autoDelete < 0 never, 0 at once when stopped.
	autoStop, autoArchive, autoDelete int32
	lastActive, stoppedAt             time.Time
}

// Idle rules' defaults, as Daytona documents them.
const (
	DefaultAutoStop    = 15
	DefaultAutoArchive = 7 * 24 * 60
	maxAutoArchive     = 30 * 24 * 60 // what 0 means
)

func (s *Server) now() time.Time {
	if s.opts.Clock != nil {
		return s.opts.Clock()
	}
	return time.Now()
}

// Tick applies the idle rules at Clock's time, as Daytona's own check
// does on its schedule: a started sandbox idle (no toolbox call) for
// autoStopInterval minutes stops (its processes end, its disk stays); a
// stopped one is deleted after autoDeleteInterval, else archived after
// autoArchiveInterval. The replica runs them only when Tick is called.
func (s *Server) Tick() {
	now := s.now()
	for _, sb := range s.all() {
		sb.mu.Lock()
		state := sb.model.GetState()
		idle, stopped := now.Sub(sb.lastActive), now.Sub(sb.stoppedAt)
		stop, archive, del := sb.autoStop, sb.autoArchive, sb.autoDelete
		sb.mu.Unlock()
		if archive == 0 {
			archive = maxAutoArchive
		}
		switch {
		case state == apiclient.SANDBOXSTATE_STARTED && stop > 0 && idle >= minutes(stop):
			s.halt(sb)
		case state == apiclient.SANDBOXSTATE_STOPPED && del >= 0 && stopped >= minutes(del):
			s.remove(context.Background(), sb)
		case state == apiclient.SANDBOXSTATE_STOPPED && stopped >= minutes(archive):
			sb.setState(apiclient.SANDBOXSTATE_ARCHIVED)
		}
	}
}

func minutes(n int32) time.Duration { return time.Duration(n) * time.Minute }

// halt stops a sandbox: every process ends, the disk stays.
func (s *Server) halt(sb *sandbox) {
	sb.endSessions()
	sb.mu.Lock()
	sb.model.SetState(apiclient.SANDBOXSTATE_STOPPED)
	sb.stoppedAt = s.now()
	sb.mu.Unlock()
}

func (s *Server) remove(ctx context.Context, sb *sandbox) {
	s.mu.Lock()
	delete(s.sandboxes, sb.model.Id)
	s.mu.Unlock()
	sb.handle.Destroy(ctx)
	sb.setState(apiclient.SANDBOXSTATE_DESTROYED)
}

// touch records activity (a toolbox call, a start).
func (s *Server) touch(sb *sandbox) {
	sb.mu.Lock()
	sb.lastActive = s.now()
	sb.mu.Unlock()
}

// NewServer starts a replica on 127.0.0.1.
func NewServer(opts Options) *Server {
	s := &Server{opts: opts, sandboxes: map[string]*sandbox{}, Faults: &replica.Faults{}}
	s.http = httptest.NewServer(s.routes())
	s.URL = s.http.URL
	return s
}

// all returns the sandboxes that exist.
func (s *Server) all() []*sandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := make([]*sandbox, 0, len(s.sandboxes))
	for _, sb := range s.sandboxes {
		list = append(list, sb)
	}
	return list
}

// APIURL is what DAYTONA_API_URL must say.
func (s *Server) APIURL() string { return s.URL + "/api" }

// Close deletes every sandbox and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	all := s.sandboxes
	s.sandboxes = map[string]*sandbox{}
	s.mu.Unlock()
	for _, sb := range all {
		sb.handle.Destroy(context.Background())
	}
	s.http.CloseClientConnections()
	s.http.Close()
}

// SandboxInfo is what a test sees of a sandbox.
type SandboxInfo struct {
	ID, Name, State, Snapshot, Target string
	Env, Labels                       map[string]string
	CPU, Memory, Disk                 float32
	NetworkBlockAll                   bool
}

// Sandboxes lists the sandboxes that exist, in creation order.
func (s *Server) Sandboxes() []SandboxInfo {
	var out []SandboxInfo
	for _, sb := range s.all() {
		m := sb.snapshot()
		out = append(out, SandboxInfo{ID: m.Id, Name: m.Name, State: string(m.GetState()), Snapshot: m.GetSnapshot(),
			Target: m.Target, Env: m.Env, Labels: m.Labels, CPU: m.Cpu, Memory: m.Memory, Disk: m.Disk, NetworkBlockAll: m.NetworkBlockAll})
	}
	slices.SortFunc(out, func(a, b SandboxInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// errorBody is the API's and the toolbox's error shape.
type errorBody struct {
	StatusCode int    `json:"statusCode"`
	Message    string `json:"message"`
	Code       string `json:"code"`
	Timestamp  string `json:"timestamp"`
}

func apiError(w http.ResponseWriter, status int, msg string) {
	replica.WriteJSON(w, status, errorBody{StatusCode: status, Message: msg,
		Code: strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_")), Timestamp: time.Now().UTC().Format(time.RFC3339)})
}

// writeJSON writes v, mutated by the negative control when set.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	if s.opts.Mutate != nil {
		b = s.opts.Mutate(b)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/sandbox", s.create)
	mux.HandleFunc("GET /api/sandbox", s.list)
	mux.HandleFunc("GET /api/sandbox/{id}", s.get)
	mux.HandleFunc("POST /api/sandbox/{id}/start", s.start)
	mux.HandleFunc("POST /api/sandbox/{id}/stop", s.stop)
	mux.HandleFunc("POST /api/sandbox/{id}/archive", s.archive)
	mux.HandleFunc("DELETE /api/sandbox/{id}", s.delete)
	s.toolboxRoutes(mux)
	return s.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+s.opts.APIKey {
			apiError(w, http.StatusUnauthorized, "Unauthorized")
			return
		}
		mux.ServeHTTP(w, r)
	}), apiError)
}

// Routes lists every route the replica serves ("METHOD path"), for the
// contract test.
func Routes() []string {
	return []string{
		"POST /api/sandbox",
		"GET /api/sandbox",
		"GET /api/sandbox/{id}",
		"POST /api/sandbox/{id}/start",
		"POST /api/sandbox/{id}/stop",
		"POST /api/sandbox/{id}/archive",
		"DELETE /api/sandbox/{id}",
		"POST /toolbox/{id}/process/execute",
		"POST /toolbox/{id}/process/session",
		"DELETE /toolbox/{id}/process/session/{sid}",
		"POST /toolbox/{id}/process/session/{sid}/exec",
		"GET /toolbox/{id}/process/session/{sid}/command/{cid}",
		"GET /toolbox/{id}/process/session/{sid}/command/{cid}/logs",
		"GET /toolbox/{id}/files",
		"DELETE /toolbox/{id}/files",
		"GET /toolbox/{id}/files/download",
		"POST /toolbox/{id}/files/upload",
		"POST /toolbox/{id}/files/bulk-upload",
		"POST /toolbox/{id}/files/bulk-download",
		"POST /toolbox/{id}/files/folder",
		"GET /toolbox/{id}/user-home-dir",
		"GET /toolbox/{id}/work-dir",
	}
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var req apiclient.CreateSandbox
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid body: "+err.Error())
		return
	}
	var env []string
	for k, v := range req.GetEnv() {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	h, err := s.opts.Runner.Spawn(r.Context(), contexts.SpawnConfig{Cwd: Home, Env: env})
	if err != nil {
		apiError(w, http.StatusInternalServerError, "cannot start sandbox: "+err.Error())
		return
	}
	s.mu.Lock()
	s.seq++
	id := "sb-" + randHex()
	s.mu.Unlock()
	m := apiclient.NewSandboxWithDefaults()
	m.Id, m.OrganizationId, m.Name, m.User = id, "org-replica", req.GetName(), firstOf(req.GetUser(), "daytona")
	if m.Name == "" {
		m.Name = id
	}
	m.Env, m.Labels = req.GetEnv(), req.GetLabels()
	if m.Env == nil {
		m.Env = map[string]string{}
	}
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Target = firstOf(req.GetTarget(), "us")
	m.NetworkBlockAll = req.GetNetworkBlockAll()
	m.Cpu, m.Memory, m.Disk = float32(orDefault(req.GetCpu(), 1)), float32(orDefault(req.GetMemory(), 1)), float32(orDefault(req.GetDisk(), 3))
	if req.BuildInfo == nil {
		m.SetSnapshot(firstOf(req.GetSnapshot(), DefaultSnapshot))
	} else {
		m.BuildInfo = &apiclient.BuildInfo{DockerfileContent: &req.BuildInfo.DockerfileContent}
	}
	m.ToolboxProxyUrl = s.URL + "/toolbox"
	m.SetState(apiclient.SANDBOXSTATE_CREATING)
	m.SetDesiredState(apiclient.SANDBOXDESIREDSTATE_STARTED)
	stop, archive, del := orDefaultPtr(req.AutoStopInterval, DefaultAutoStop), orDefaultPtr(req.AutoArchiveInterval, DefaultAutoArchive), orDefaultPtr(req.AutoDeleteInterval, -1)
	m.AutoStopInterval, m.AutoArchiveInterval, m.AutoDeleteInterval = ptr(float32(stop)), ptr(float32(archive)), ptr(float32(del))
	sb := &sandbox{model: *m, handle: h, bootAt: time.Now().Add(s.opts.BootDelay), notReady: s.opts.ToolboxNotReady, sessions: map[string]*session{},
		autoStop: stop, autoArchive: archive, autoDelete: del, lastActive: s.now()}
	s.mu.Lock()
	s.sandboxes[id] = sb
	s.mu.Unlock()
	s.writeJSON(w, http.StatusOK, sb.snapshot())
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func ptr[T any](v T) *T { return &v }

func orDefaultPtr(v *int32, d int32) int32 {
	if v == nil {
		return d
	}
	return *v
}

func orDefault(v, d int32) int32 {
	if v == 0 {
		return d
	}
	return v
}

// snapshot returns the model, moving creating to started once booted.
func (sb *sandbox) snapshot() apiclient.Sandbox {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.model.GetState() == apiclient.SANDBOXSTATE_CREATING && !time.Now().Before(sb.bootAt) {
		sb.model.SetState(apiclient.SANDBOXSTATE_STARTED)
	}
	return sb.model
}

func (sb *sandbox) state() apiclient.SandboxState {
	m := sb.snapshot()
	return m.GetState()
}

func (sb *sandbox) setState(st apiclient.SandboxState) {
	sb.mu.Lock()
	sb.model.SetState(st)
	sb.mu.Unlock()
}

// find resolves an id or a name.
func (s *Server) find(idOrName string) *sandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sb, ok := s.sandboxes[idOrName]; ok {
		return sb
	}
	for _, sb := range s.sandboxes {
		if sb.model.Name == idOrName {
			return sb
		}
	}
	return nil
}

func (s *Server) lookup(w http.ResponseWriter, r *http.Request) *sandbox {
	sb := s.find(r.PathValue("id"))
	if sb == nil {
		apiError(w, http.StatusNotFound, "Sandbox with ID or name "+r.PathValue("id")+" not found")
	}
	return sb
}

func (s *Server) get(w http.ResponseWriter, r *http.Request) {
	if sb := s.lookup(w, r); sb != nil {
		s.writeJSON(w, http.StatusOK, sb.snapshot())
	}
}

// list filters by labels (a JSON object), as GET /sandbox?labels= does.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	want := map[string]string{}
	if l := r.URL.Query().Get("labels"); l != "" {
		if err := json.Unmarshal([]byte(l), &want); err != nil {
			apiError(w, http.StatusBadRequest, "labels must be a JSON object")
			return
		}
	}
	out := apiclient.ListSandboxesResponse{Items: []apiclient.SandboxListItem{}}
	out.NextCursor.Set(nil)
	for _, info := range s.Sandboxes() {
		sb := s.find(info.ID)
		if sb == nil {
			continue
		}
		m := sb.snapshot()
		match := true
		for k, v := range want {
			match = match && m.Labels[k] == v
		}
		if match {
			it := apiclient.NewSandboxListItem(m.Id, m.OrganizationId, m.Name, m.Target, m.User, m.Public, m.Cpu, m.Gpu, m.Memory, m.Disk, m.Labels, m.ToolboxProxyUrl)
			it.State, it.Snapshot = m.State, m.Snapshot
			it.AutoStopInterval, it.AutoArchiveInterval, it.AutoDeleteInterval = m.AutoStopInterval, m.AutoArchiveInterval, m.AutoDeleteInterval
			out.Items = append(out.Items, *it)
		}
	}
	s.writeJSON(w, http.StatusOK, out)
}

func (s *Server) start(w http.ResponseWriter, r *http.Request) {
	sb := s.lookup(w, r)
	if sb == nil {
		return
	}
	switch sb.state() {
	case apiclient.SANDBOXSTATE_STOPPED, apiclient.SANDBOXSTATE_ARCHIVED, apiclient.SANDBOXSTATE_STARTED:
		sb.setState(apiclient.SANDBOXSTATE_STARTED)
		s.touch(sb)
		s.writeJSON(w, http.StatusOK, sb.snapshot())
	default:
		apiError(w, http.StatusConflict, "Sandbox is not in a state that can be started")
	}
}

// stop takes ?force=true (SIGKILL rather than SIGTERM); both end every
// process: a stopped sandbox keeps its disk only.
func (s *Server) stop(w http.ResponseWriter, r *http.Request) {
	sb := s.lookup(w, r)
	if sb == nil {
		return
	}
	s.halt(sb)
	s.writeJSON(w, http.StatusOK, sb.snapshot())
}

// archive needs a stopped sandbox.
func (s *Server) archive(w http.ResponseWriter, r *http.Request) {
	sb := s.lookup(w, r)
	if sb == nil {
		return
	}
	if sb.state() != apiclient.SANDBOXSTATE_STOPPED {
		apiError(w, http.StatusBadRequest, "Sandbox must be stopped before it can be archived")
		return
	}
	sb.setState(apiclient.SANDBOXSTATE_ARCHIVED)
	s.writeJSON(w, http.StatusOK, sb.snapshot())
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request) {
	sb := s.lookup(w, r)
	if sb == nil {
		return
	}
	s.remove(context.WithoutCancel(r.Context()), sb)
	s.writeJSON(w, http.StatusOK, sb.snapshot())
}

// Existing lists "ID state" of every sandbox that exists: a leak check.
func (s *Server) Existing() []string {
	var out []string
	for _, sb := range s.Sandboxes() {
		out = append(out, sb.ID+" "+sb.State)
	}
	return out
}
