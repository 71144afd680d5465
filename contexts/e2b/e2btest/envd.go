package e2btest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"sort"
	"sync"

	"connectrpc.com/connect"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/e2b/internal/wire"
)

// rproc is a process envd runs: its events are logged so that Start
// follows them from the first and Connect from the moment it attaches.
type rproc struct {
	pid    uint32
	tag    *string
	config wire.ProcessConfig
	proc   contexts.Process
	term   contexts.Terminal // set instead of proc for a pty process
	stdin  *io.PipeWriter    // nil: started without stdin

	mu     sync.Mutex
	cond   *sync.Cond
	events []wire.ProcessEvent
	ended  bool
}

func (p *rproc) add(ev wire.ProcessEvent, end bool) {
	p.mu.Lock()
	p.events = append(p.events, ev)
	p.ended = p.ended || end
	p.mu.Unlock()
	p.cond.Broadcast()
}

// follow sends the events from index from on, until the end event or
// until ctx ends; cut > 0 aborts the connection after that many.
func (p *rproc) follow(ctx context.Context, from int, send func(*wire.EventResponse) error, cut int) error {
	stop := context.AfterFunc(ctx, func() { p.mu.Lock(); p.cond.Broadcast(); p.mu.Unlock() })
	defer stop()
	sent := 0
	for i := from; ; i++ {
		p.mu.Lock()
		for i >= len(p.events) && !p.ended && ctx.Err() == nil {
			p.cond.Wait()
		}
		if ctx.Err() != nil || i >= len(p.events) {
			p.mu.Unlock()
			return ctx.Err()
		}
		ev := p.events[i]
		p.mu.Unlock()
		if cut > 0 && sent == cut {
			panic(errAbort)
		}
		if err := send(&wire.EventResponse{Event: ev}); err != nil {
			return err
		}
		sent++
		if ev.End != nil {
			return nil
		}
	}
}

// pumpPty turns a terminal's output and exit into events.
func (p *rproc) pumpPty(sb *sandbox) {
	buf := make([]byte, 32<<10)
	for {
		n, err := p.term.Read(buf)
		if n > 0 {
			p.add(wire.ProcessEvent{Data: &wire.DataEvent{Pty: append([]byte(nil), buf[:n]...)}}, false)
		}
		if err != nil {
			break
		}
	}
	code, err := p.term.Wait(context.Background())
	p.finish(sb, code, err)
}

// pump turns the process's output and exit into events.
func (p *rproc) pump(sb *sandbox) {
	var wg sync.WaitGroup
	for _, stderr := range []bool{false, true} {
		r := p.proc.Stdout()
		if stderr {
			r = p.proc.Stderr()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 32<<10)
			for {
				n, err := r.Read(buf)
				if n > 0 {
					chunk := append([]byte(nil), buf[:n]...)
					d := &wire.DataEvent{Stdout: chunk}
					if stderr {
						d = &wire.DataEvent{Stderr: chunk}
					}
					p.add(wire.ProcessEvent{Data: d}, false)
				}
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	res, err := p.proc.Wait(context.Background())
	p.finish(sb, res.ExitCode, err)
}

func (p *rproc) finish(sb *sandbox, code int, err error) {
	end := &wire.EndEvent{ExitCode: int32(code), Exited: true, Status: fmt.Sprintf("exit status %d", code)}
	if err != nil {
		msg := err.Error()
		end.Error = &msg
	}
	// envd forgets a process once it has ended: Connect and List no
	// longer see it.
	sb.mu.Lock()
	delete(sb.procs, p.pid)
	sb.mu.Unlock()
	p.add(wire.ProcessEvent{End: end}, true)
}

func (s *Server) start(ctx context.Context, req *connect.Request[wire.StartRequest], stream *connect.ServerStream[wire.EventResponse]) error {
	sb := sandboxOf(ctx)
	cfg := req.Msg.Process
	if cfg.Cmd == "" {
		return connect.NewError(connect.CodeInvalidArgument, errors.New("process.cmd is empty"))
	}
	env := []string{}
	for _, m := range []map[string]string{sb.env, cfg.Envs} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			env = append(env, k+"="+m[k])
		}
	}
	cmd := contexts.Cmd{Args: append([]string{cfg.Cmd}, cfg.Args...), Env: env}
	if cfg.Cwd != nil {
		cmd.Cwd = *cfg.Cwd
	}
	p := &rproc{tag: req.Msg.Tag, config: cfg}
	p.cond = sync.NewCond(&p.mu)
	pump := p.pump
	if pty := req.Msg.Pty; pty != nil {
		// A real pseudo-terminal: the runner's own (a TTY exec in the
		// sandbox's container).
		term, err := sb.handle.OpenTerminal(context.WithoutCancel(ctx), contexts.TerminalConfig{
			Cols: uint16(pty.Size.Cols), Rows: uint16(pty.Size.Rows), Cwd: cmd.Cwd, Env: env, Args: cmd.Args})
		if err != nil {
			return connectErr(err)
		}
		p.term, pump = term, p.pumpPty
	} else {
		if req.Msg.Stdin == nil || *req.Msg.Stdin { // omitted means true
			var r *io.PipeReader
			r, p.stdin = io.Pipe()
			cmd.Stdin = r
		}
		proc, err := sb.handle.Start(context.WithoutCancel(ctx), cmd)
		if err != nil {
			return connectErr(err)
		}
		p.proc = proc
	}
	sb.mu.Lock()
	sb.nextPid++
	p.pid = sb.nextPid
	sb.procs[p.pid] = p
	sb.mu.Unlock()
	p.add(wire.ProcessEvent{Start: &wire.StartEvent{Pid: p.pid}}, false)
	go pump(sb)
	s.mu.Lock()
	cut := s.cutAfter
	s.mu.Unlock()
	return p.follow(ctx, 0, stream.Send, cut)
}

// find resolves a selector among the running processes.
func (sb *sandbox) find(sel wire.ProcessSelector) (*rproc, error) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	for _, p := range sb.procs {
		if (sel.Pid != nil && *sel.Pid == p.pid) || (sel.Tag != nil && p.tag != nil && *sel.Tag == *p.tag) {
			return p, nil
		}
	}
	return nil, connect.NewError(connect.CodeNotFound, errors.New("process not found"))
}

// reconnect is Connect: a start event, then the events from now on (what
// the process printed before is not replayed).
func (s *Server) reconnect(ctx context.Context, req *connect.Request[wire.ConnectRequest], stream *connect.ServerStream[wire.EventResponse]) error {
	p, err := sandboxOf(ctx).find(req.Msg.Process)
	if err != nil {
		return err
	}
	p.mu.Lock()
	from := len(p.events)
	p.mu.Unlock()
	if err := stream.Send(&wire.EventResponse{Event: wire.ProcessEvent{Start: &wire.StartEvent{Pid: p.pid}}}); err != nil {
		return err
	}
	return p.follow(ctx, from, stream.Send, 0)
}

func (s *Server) procList(ctx context.Context, _ *wire.ListRequest) (*wire.ListResponse, error) {
	sb := sandboxOf(ctx)
	sb.mu.Lock()
	defer sb.mu.Unlock()
	out := &wire.ListResponse{Processes: []wire.ProcessInfo{}}
	for _, p := range sb.procs {
		out.Processes = append(out.Processes, wire.ProcessInfo{Config: p.config, Pid: p.pid, Tag: p.tag})
	}
	sort.Slice(out.Processes, func(i, j int) bool { return out.Processes[i].Pid < out.Processes[j].Pid })
	return out, nil
}

func (s *Server) sendInput(ctx context.Context, req *wire.SendInputRequest) (*wire.Empty, error) {
	p, err := sandboxOf(ctx).find(req.Process)
	if err != nil {
		return nil, err
	}
	if req.Input.Pty != nil {
		if p.term == nil {
			return nil, connect.NewError(connect.CodeFailedPrecondition, errors.New("the process has no pty"))
		}
		if _, err := p.term.Write(req.Input.Pty); err != nil {
			return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("pty: %v", err))
		}
		return &wire.Empty{}, nil
	}
	if p.stdin == nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, errors.New("stdin is not enabled for this process"))
	}
	if _, err := p.stdin.Write(req.Input.Stdin); err != nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, fmt.Errorf("stdin: %v", err))
	}
	return &wire.Empty{}, nil
}

func (s *Server) closeStdin(ctx context.Context, req *wire.CloseStdinRequest) (*wire.Empty, error) {
	p, err := sandboxOf(ctx).find(req.Process)
	if err != nil {
		return nil, err
	}
	if p.stdin != nil {
		p.stdin.Close()
	}
	return &wire.Empty{}, nil
}

func (s *Server) sendSignal(ctx context.Context, req *wire.SendSignalRequest) (*wire.Empty, error) {
	p, err := sandboxOf(ctx).find(req.Process)
	if err != nil {
		return nil, err
	}
	sig, ok := signals[req.Signal]
	if !ok {
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("invalid signal %q", req.Signal))
	}
	if p.term != nil {
		// The runner's terminal can only be killed: TERM is delivered as
		// KILL (envd would send TERM).
		if err := p.term.Kill(); err != nil {
			return nil, connectErr(err)
		}
		return &wire.Empty{}, nil
	}
	if err := p.proc.Signal(ctx, sig); err != nil && !errors.Is(err, contexts.ErrNotFound) {
		return nil, connectErr(err)
	}
	return &wire.Empty{}, nil
}

// update is process.Process/Update: a pty's new size.
func (s *Server) update(ctx context.Context, req *wire.UpdateRequest) (*wire.Empty, error) {
	p, err := sandboxOf(ctx).find(req.Process)
	if err != nil {
		return nil, err
	}
	if req.Pty == nil {
		return &wire.Empty{}, nil
	}
	if p.term == nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, errors.New("the process has no pty"))
	}
	if err := p.term.Resize(uint16(req.Pty.Size.Cols), uint16(req.Pty.Size.Rows)); err != nil {
		return nil, connectErr(err)
	}
	return &wire.Empty{}, nil
}

func (s *Server) listDir(ctx context.Context, req *wire.ListDirRequest) (*wire.ListDirResponse, error) {
	sb := sandboxOf(ctx)
	dir := sb.abs(req.Path)
	list, err := sb.handle.ListFiles(ctx, dir)
	if err != nil {
		return nil, connectErr(err)
	}
	out := &wire.ListDirResponse{Entries: []wire.EntryInfo{}}
	for _, f := range list {
		e := wire.EntryInfo{Name: f.Name, Type: wire.FileTypeFile, Path: path.Join(dir, f.Name), Size: f.Size,
			Mode: uint32(f.Mode.Perm()), Permissions: f.Mode.String(), Owner: "user", Group: "user"}
		if f.IsDir {
			e.Type = wire.FileTypeDir
		}
		out.Entries = append(out.Entries, e)
	}
	return out, nil
}

// abs resolves a path as envd does: relative to the user's home.
func (sb *sandbox) abs(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(Home, p)
}

func fileError(w http.ResponseWriter, err error) {
	if errors.Is(err, contexts.ErrNotFound) {
		apiError(w, http.StatusNotFound, err.Error())
		return
	}
	apiError(w, http.StatusInternalServerError, err.Error())
}

func (s *Server) readFile(w http.ResponseWriter, r *http.Request) {
	sb := sandboxOf(r.Context())
	p := r.URL.Query().Get("path")
	if p == "" {
		apiError(w, http.StatusBadRequest, "path is required")
		return
	}
	data, err := sb.handle.ReadFile(r.Context(), sb.abs(p))
	if err != nil {
		fileError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Write(data)
}

// writeFile takes a multipart "file" field or (envd ≥ 0.5.7) a raw body.
func (s *Server) writeFile(w http.ResponseWriter, r *http.Request) {
	sb := sandboxOf(r.Context())
	p := r.URL.Query().Get("path")
	if p == "" {
		apiError(w, http.StatusBadRequest, "path is required")
		return
	}
	var data []byte
	var err error
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "multipart/form-data":
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			part, perr := mr.NextPart()
			if perr != nil {
				err = fmt.Errorf("multipart: no file field (%v)", perr)
				break
			}
			if part.FormName() == "file" {
				data, err = io.ReadAll(part)
				break
			}
		}
	case "application/octet-stream":
		data, err = io.ReadAll(r.Body)
	default:
		err = fmt.Errorf("unsupported content type %q", mt)
	}
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	full := sb.abs(p)
	if err := sb.handle.WriteFile(r.Context(), full, data, 0o644); err != nil {
		fileError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, []wire.WriteInfo{{Path: full, Name: path.Base(full), Type: "file"}})
}
