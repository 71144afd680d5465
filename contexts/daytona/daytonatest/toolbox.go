package daytonatest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apiclient "github.com/daytonaio/daytona/libs/api-client-go"
	toolbox "github.com/daytonaio/daytona/libs/toolbox-api-client-go"

	"github.com/zsandbox/zsandbox/contexts"
)

func randHex() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// session is a toolbox session: its commands run in the background.
type session struct {
	mu   sync.Mutex
	cmds map[string]*command
}

type command struct {
	id, line string
	proc     contexts.Process

	mu             sync.Mutex
	stdout, stderr bytes.Buffer
	combined       bytes.Buffer
	exitCode       *int32
}

func (c *command) collect() {
	var wg sync.WaitGroup
	for i, r := range []io.Reader{c.proc.Stdout(), c.proc.Stderr()} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 32<<10)
			for {
				n, err := r.Read(buf)
				c.mu.Lock()
				if i == 0 {
					c.stdout.Write(buf[:n])
				} else {
					c.stderr.Write(buf[:n])
				}
				c.combined.Write(buf[:n])
				c.mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	res, _ := c.proc.Wait(context.Background())
	code := int32(res.ExitCode)
	c.mu.Lock()
	c.exitCode = &code
	c.mu.Unlock()
}

func (sb *sandbox) endSessions() {
	sb.mu.Lock()
	sessions := sb.sessions
	sb.sessions = map[string]*session{}
	sb.mu.Unlock()
	for _, s := range sessions {
		s.mu.Lock()
		for _, c := range s.cmds {
			c.proc.Signal(context.Background(), 9)
		}
		s.mu.Unlock()
	}
}

type toolboxKey struct{}

func sandboxOf(r *http.Request) *sandbox { return r.Context().Value(toolboxKey{}).(*sandbox) }

func (s *Server) toolboxRoutes(mux *http.ServeMux) {
	tb := http.NewServeMux()
	tb.HandleFunc("POST /process/execute", s.execute)
	tb.HandleFunc("POST /process/session", s.createSession)
	tb.HandleFunc("DELETE /process/session/{sid}", s.deleteSession)
	tb.HandleFunc("POST /process/session/{sid}/exec", s.sessionExec)
	tb.HandleFunc("GET /process/session/{sid}/command/{cid}", s.sessionCommand)
	tb.HandleFunc("GET /process/session/{sid}/command/{cid}/logs", s.sessionLogs)
	tb.HandleFunc("GET /files", s.listFiles)
	tb.HandleFunc("DELETE /files", s.deleteFile)
	tb.HandleFunc("GET /files/download", s.download)
	tb.HandleFunc("POST /files/upload", s.upload)
	tb.HandleFunc("POST /files/bulk-upload", s.bulkUpload)
	tb.HandleFunc("POST /files/bulk-download", s.bulkDownload)
	tb.HandleFunc("POST /files/folder", s.folder)
	tb.HandleFunc("GET /user-home-dir", func(w http.ResponseWriter, r *http.Request) { s.writeJSON(w, 200, map[string]string{"dir": Home}) })
	tb.HandleFunc("GET /work-dir", func(w http.ResponseWriter, r *http.Request) { s.writeJSON(w, 200, map[string]string{"dir": Home}) })
	mux.HandleFunc("/toolbox/{id}/", func(w http.ResponseWriter, r *http.Request) {
		sb := s.find(r.PathValue("id"))
		plain502 := func(msg string) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, msg+"\n")
		}
		if sb == nil {
			apiError(w, http.StatusNotFound, "sandbox not found")
			return
		}
		if sb.state() != apiclient.SANDBOXSTATE_STARTED {
			plain502("sandbox is not running")
			return
		}
		sb.mu.Lock()
		notReady := sb.notReady > 0
		if notReady {
			sb.notReady--
		}
		sb.mu.Unlock()
		if notReady {
			plain502("toolbox is not ready")
			return
		}
		s.touch(sb)
		r2 := r.Clone(context.WithValue(r.Context(), toolboxKey{}, sb))
		r2.URL.Path = strings.TrimPrefix(r.URL.Path, "/toolbox/"+r.PathValue("id"))
		tb.ServeHTTP(w, r2)
	})
}

func envList(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// execute runs the command by the shell, stdout and stderr combined in
// result, as the daemon does; past timeout seconds it kills the process
// group and answers 408.
func (s *Server) execute(w http.ResponseWriter, r *http.Request) {
	sb := sandboxOf(r)
	var req toolbox.ExecuteRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	cmd := contexts.Cmd{Args: []string{"/bin/sh", "-c", `eval "$1" 2>&1`, "sh", req.Command}, Cwd: req.GetCwd(), Env: envList(req.GetEnvs())}
	if req.Timeout != nil && *req.Timeout > 0 {
		cmd.Timeout = time.Duration(*req.Timeout) * time.Second
	}
	res, err := sb.handle.Exec(r.Context(), cmd)
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if res.TimedOut {
		apiError(w, http.StatusRequestTimeout, "command execution timeout")
		return
	}
	out := toolbox.NewExecuteResponse(string(res.Stdout))
	out.SetExitCode(int32(res.ExitCode))
	s.writeJSON(w, http.StatusOK, out)
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	sb := sandboxOf(r)
	var req toolbox.CreateSessionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if _, dup := sb.sessions[req.SessionId]; dup {
		apiError(w, http.StatusConflict, "session already exists")
		return
	}
	sb.sessions[req.SessionId] = &session{cmds: map[string]*command{}}
	w.WriteHeader(http.StatusCreated)
}

func (sb *sandbox) session(id string) *session {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return sb.sessions[id]
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) {
	sb := sandboxOf(r)
	ss := sb.session(r.PathValue("sid"))
	if ss == nil {
		apiError(w, http.StatusNotFound, "session not found")
		return
	}
	sb.mu.Lock()
	delete(sb.sessions, r.PathValue("sid"))
	sb.mu.Unlock()
	ss.mu.Lock()
	for _, c := range ss.cmds {
		c.proc.Signal(context.Background(), 9)
	}
	ss.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) sessionExec(w http.ResponseWriter, r *http.Request) {
	sb := sandboxOf(r)
	ss := sb.session(r.PathValue("sid"))
	if ss == nil {
		apiError(w, http.StatusNotFound, "session not found")
		return
	}
	var req toolbox.SessionExecuteRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	proc, err := sb.handle.Start(context.WithoutCancel(r.Context()), contexts.Cmd{Args: []string{"/bin/sh", "-c", req.Command}})
	if err != nil {
		apiError(w, http.StatusInternalServerError, err.Error())
		return
	}
	c := &command{id: "cmd-" + randHex(), line: req.Command, proc: proc}
	ss.mu.Lock()
	ss.cmds[c.id] = c
	ss.mu.Unlock()
	async := req.GetRunAsync() || req.GetAsync()
	done := make(chan struct{})
	go func() { c.collect(); close(done) }()
	out := toolbox.NewSessionExecuteResponse(c.id)
	if !async {
		<-done
		c.mu.Lock()
		out.ExitCode = c.exitCode
		out.SetOutput(c.combined.String())
		out.SetStdout(c.stdout.String())
		out.SetStderr(c.stderr.String())
		c.mu.Unlock()
	}
	s.writeJSON(w, http.StatusAccepted, out)
}

func (s *Server) findCommand(w http.ResponseWriter, r *http.Request) *command {
	ss := sandboxOf(r).session(r.PathValue("sid"))
	if ss == nil {
		apiError(w, http.StatusNotFound, "session not found")
		return nil
	}
	ss.mu.Lock()
	c := ss.cmds[r.PathValue("cid")]
	ss.mu.Unlock()
	if c == nil {
		apiError(w, http.StatusNotFound, "command not found")
	}
	return c
}

func (s *Server) sessionCommand(w http.ResponseWriter, r *http.Request) {
	c := s.findCommand(w, r)
	if c == nil {
		return
	}
	out := toolbox.NewCommand(c.line, c.id)
	c.mu.Lock()
	out.ExitCode = c.exitCode
	c.mu.Unlock()
	s.writeJSON(w, http.StatusOK, out)
}

var semver = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)`)

// jsonLogs: the daemon answers logs as JSON only to an SDK of 0.167.0 or
// newer (X-Daytona-SDK-Version); everyone else gets plain text.
func jsonLogs(v string) bool {
	m := semver.FindStringSubmatch(v)
	if m == nil {
		return false
	}
	n := func(i int) int { x, _ := strconv.Atoi(m[i]); return x }
	return n(1) > 0 || n(2) > 167 || (n(2) == 167 && n(3) >= 0)
}

func (s *Server) sessionLogs(w http.ResponseWriter, r *http.Request) {
	c := s.findCommand(w, r)
	if c == nil {
		return
	}
	c.mu.Lock()
	out := toolbox.NewSessionCommandLogsResponse(c.combined.String(), c.stderr.String(), c.stdout.String())
	c.mu.Unlock()
	if !jsonLogs(r.Header.Get("X-Daytona-SDK-Version")) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, out.Output)
		return
	}
	s.writeJSON(w, http.StatusOK, out)
}

func fileErr(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, contexts.ErrNotFound):
		apiError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, contexts.ErrUsage):
		apiError(w, http.StatusBadRequest, err.Error())
	default:
		apiError(w, http.StatusInternalServerError, err.Error())
	}
}

func abs(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(Home, p)
}

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) {
	sb := sandboxOf(r)
	list, err := sb.handle.ListFiles(r.Context(), abs(r.URL.Query().Get("path")))
	if err != nil {
		fileErr(w, err)
		return
	}
	out := []toolbox.FileInfo{}
	now := time.Now().UTC().Format(time.RFC3339)
	for _, f := range list {
		out = append(out, *toolbox.NewFileInfo("daytona", f.IsDir, now, fmt.Sprintf("%o", f.Mode.Perm()), now, f.Name,
			"daytona", f.Mode.String(), int32(f.Size)))
	}
	s.writeJSON(w, http.StatusOK, out)
}

func (s *Server) deleteFile(w http.ResponseWriter, r *http.Request) {
	sb := sandboxOf(r)
	res, err := sb.handle.Exec(r.Context(), contexts.Cmd{Args: []string{"rm", "-rf", "--", abs(r.URL.Query().Get("path"))}})
	if err != nil || res.ExitCode != 0 {
		apiError(w, http.StatusInternalServerError, "delete failed")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	data, err := sandboxOf(r).handle.ReadFile(r.Context(), abs(r.URL.Query().Get("path")))
	if err != nil {
		fileErr(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Write(data)
}

func (s *Server) write(r *http.Request, p string, data []byte) error {
	return sandboxOf(r).handle.WriteFile(r.Context(), abs(p), data, 0o644)
}

// upload is the v0.190.0 single-file route: multipart field "file".
func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	f, _, err := r.FormFile("file")
	if err != nil {
		apiError(w, http.StatusBadRequest, "multipart field file: "+err.Error())
		return
	}
	data, _ := io.ReadAll(f)
	if err := s.write(r, r.URL.Query().Get("path"), data); err != nil {
		fileErr(w, err)
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]any{})
}

var bulkField = regexp.MustCompile(`^files\[(\d+)\]\.(path|file)$`)

// bulkUpload takes files[i].path and files[i].file pairs.
func (s *Server) bulkUpload(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseMultipartForm(64 << 20); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	paths := map[string]string{}
	for k, v := range r.MultipartForm.Value {
		if m := bulkField.FindStringSubmatch(k); m != nil && m[2] == "path" && len(v) > 0 {
			paths[m[1]] = v[0]
		}
	}
	for k, fhs := range r.MultipartForm.File {
		m := bulkField.FindStringSubmatch(k)
		if m == nil || m[2] != "file" || paths[m[1]] == "" || len(fhs) == 0 {
			apiError(w, http.StatusBadRequest, "unexpected field "+k)
			return
		}
		f, _ := fhs[0].Open()
		data, _ := io.ReadAll(f)
		f.Close()
		if err := s.write(r, paths[m[1]], data); err != nil {
			fileErr(w, err)
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}

// bulkDownload answers multipart/form-data: one "file" part per path,
// or an "error" part for a path that cannot be read.
func (s *Server) bulkDownload(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Paths []string `json:"paths"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range req.Paths {
		data, err := sandboxOf(r).handle.ReadFile(r.Context(), abs(p))
		h := textproto.MIMEHeader{}
		if err != nil {
			h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": "error", "filename": p}))
			h.Set("Content-Type", "application/json")
			pw, _ := mw.CreatePart(h)
			msg, _ := json.Marshal(errorBody{StatusCode: 404, Message: "file not found: " + p, Code: "NOT_FOUND"})
			pw.Write(msg)
			continue
		}
		h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": "file", "filename": p}))
		h.Set("Content-Type", "application/octet-stream")
		pw, _ := mw.CreatePart(h)
		pw.Write(data)
	}
	mw.Close()
	w.Header().Set("Content-Type", mw.FormDataContentType())
	w.Write(body.Bytes())
}

func (s *Server) folder(w http.ResponseWriter, r *http.Request) {
	res, err := sandboxOf(r).handle.Exec(r.Context(), contexts.Cmd{Args: []string{"mkdir", "-p", "--", abs(r.URL.Query().Get("path"))}})
	if err != nil || res.ExitCode != 0 {
		apiError(w, http.StatusInternalServerError, "mkdir failed")
		return
	}
	w.WriteHeader(http.StatusCreated)
}

// CommandLines lists the command line of every session command the
// toolbox was given, as Daytona's daemon keeps them (GET
// /process/session/{id} shows them to anyone who can reach it).
func (s *Server) CommandLines() []string {
	var out []string
	for _, sb := range s.all() {
		sb.mu.Lock()
		for _, ss := range sb.sessions {
			ss.mu.Lock()
			for _, c := range ss.cmds {
				out = append(out, c.line)
			}
			ss.mu.Unlock()
		}
		sb.mu.Unlock()
	}
	return out
}
