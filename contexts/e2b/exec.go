package e2b

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"connectrpc.com/connect"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/e2b/internal/wire"
	"github.com/zsandbox/zsandbox/contexts/internal/base"
	"github.com/zsandbox/zsandbox/contexts/internal/procs"
	"github.com/zsandbox/zsandbox/contexts/internal/remote"
)

// Handle is one sandbox.
type Handle struct {
	base.Base
	c       *Context
	sandbox string
	envd    *envd
	kept    string

	startMu sync.Mutex // numbers background processes (their tags)

	termMu sync.Mutex
	terms  []*terminal // killed by Destroy
}

// stdinChunk is the size of one SendInput call.
const stdinChunk = 256 << 10

// proc is a command envd runs, seen through its event stream.
type proc struct {
	h      *Handle
	pid    uint32
	stream *connect.ServerStreamForClient[wire.EventResponse]
}

// begin starts cmd through envd and reads up to its start event. tag
// names a background process for a later Connect; pty, when set, runs it
// on a pseudo-terminal (its output then comes as pty data).
func (h *Handle) begin(ctx context.Context, cmd contexts.Cmd, tag string, pty *wire.PTY) (*proc, []string, error) {
	if err := h.Alive(); err != nil {
		return nil, nil, err
	}
	argv, err := cmd.Argv()
	if err != nil {
		return nil, nil, err
	}
	envs := map[string]string{}
	for _, kv := range contexts.WithPassed(cmd.Env, cmd.PassEnv) {
		k, v, _ := strings.Cut(kv, "=")
		envs[k] = v
	}
	// The spawn's env lives in the sandbox (envVars at create); only a
	// handle reopened in another program re-sends what it knows.
	for _, kv := range h.St.Env {
		k, v, _ := strings.Cut(kv, "=")
		if _, set := envs[k]; !set {
			envs[k] = v
		}
	}
	cwd := h.Abs(cmd.Cwd)
	stdin := cmd.Stdin != nil
	req := &wire.StartRequest{Process: wire.ProcessConfig{Cmd: argv[0], Args: argv[1:], Envs: envs, Cwd: &cwd}, Stdin: &stdin, Pty: pty}
	if pty != nil {
		req.Stdin = nil // a terminal's input is the pty's, as the SDK sends it
	}
	if tag != "" {
		req.Tag = &tag
	}
	s, err := h.envd.stream(ctx, wire.ProcStart, req)
	if err != nil {
		return nil, nil, err
	}
	p := &proc{h: h, stream: s}
	if !s.Receive() {
		return nil, nil, p.broke(s.Err())
	}
	if ev := s.Msg().Event; ev.Start != nil {
		p.pid = ev.Start.Pid
	} else {
		s.Close()
		return nil, nil, contexts.Errorf(contexts.ErrUnavailable, "e2b: envd of sandbox %s: the stream did not begin with a start event", h.sandbox)
	}
	if stdin {
		go p.feed(context.WithoutCancel(ctx), cmd.Stdin)
	}
	return p, argv, nil
}

func (p *proc) broke(err error) error {
	if err == nil {
		return contexts.Errorf(contexts.ErrUnavailable, "e2b: envd of sandbox %s: the output stream ended before the process did", p.h.sandbox)
	}
	return p.h.envd.rpcErr(wire.ProcStart, err)
}

func (p *proc) selector() wire.ProcessSelector { return wire.ProcessSelector{Pid: &p.pid} }

// feed sends stdin in chunks, then closes it (EOF for the command).
func (p *proc) feed(ctx context.Context, r io.Reader) {
	buf := make([]byte, stdinChunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			in := &wire.SendInputRequest{Process: p.selector(), Input: wire.ProcessInput{Stdin: buf[:n]}}
			if _, serr := unary[wire.SendInputRequest, wire.Empty](ctx, p.h.envd, wire.ProcSendInput, in); serr != nil {
				return
			}
		}
		if err != nil {
			break
		}
	}
	unary[wire.CloseStdinRequest, wire.Empty](ctx, p.h.envd, wire.ProcCloseStdin, &wire.CloseStdinRequest{Process: p.selector()})
}

// signal sends sig through envd, whose enum has only TERM and KILL.
func (p *proc) signal(ctx context.Context, sig syscall.Signal) error {
	name := map[syscall.Signal]string{syscall.SIGTERM: wire.SignalTerm, syscall.SIGKILL: wire.SignalKill}[sig]
	if name == "" {
		return contexts.Errorf(contexts.ErrUnsupported, "e2b: signal %v: envd sends only SIGTERM and SIGKILL", sig)
	}
	_, err := unary[wire.SendSignalRequest, wire.Empty](ctx, p.h.envd, wire.ProcSendSignal,
		&wire.SendSignalRequest{Process: p.selector(), Signal: name})
	return err
}

// drain copies the stream's output to stdout and stderr until the end
// event and returns the exit code.
func (p *proc) drain(stdout, stderr io.Writer) (int, error) {
	defer p.stream.Close()
	for p.stream.Receive() {
		ev := p.stream.Msg().Event
		switch {
		case ev.Data != nil:
			stdout.Write(ev.Data.Stdout)
			stdout.Write(ev.Data.Pty)
			stderr.Write(ev.Data.Stderr)
		case ev.End != nil:
			return exitOf(ev.End), nil
		}
	}
	return contexts.ExitCannotRun, p.broke(p.stream.Err())
}

// signalNames are Go's strings for the statuses envd reports.
var signalNames = map[string]syscall.Signal{"hangup": syscall.SIGHUP, "interrupt": syscall.SIGINT, "quit": syscall.SIGQUIT,
	"killed": syscall.SIGKILL, "terminated": syscall.SIGTERM, "aborted": syscall.SIGABRT,
	"segmentation fault": syscall.SIGSEGV, "broken pipe": syscall.SIGPIPE, "alarm clock": syscall.SIGALRM}

// exitOf maps an end event to the shell's exit code: envd reports a
// death by signal as exit code -1 with status "signal: <name>".
func exitOf(e *wire.EndEvent) int {
	if name, ok := strings.CutPrefix(e.Status, "signal: "); ok && e.ExitCode < 0 {
		if sig, ok := signalNames[name]; ok {
			return contexts.SignalExit(sig)
		}
	}
	if e.ExitCode < 0 {
		return contexts.ExitCannotRun
	}
	return int(e.ExitCode)
}

func tee(buf *bytes.Buffer, w io.Writer) io.Writer {
	if w == nil {
		return buf
	}
	return io.MultiWriter(buf, w)
}

// run runs cmd to the end: past cmd.Timeout (or when ctx ends) it kills
// the process through envd and reports 124.
func (h *Handle) run(ctx context.Context, cmd contexts.Cmd, tag string) (contexts.Result, error) {
	// The stream itself outlives ctx for a moment: the kill has to be
	// sent and the end event read.
	streamCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	p, _, err := h.begin(streamCtx, cmd, tag, nil)
	if err != nil {
		return contexts.Result{ExitCode: contexts.ExitCannotRun, Stderr: []byte(err.Error() + "\n")}, err
	}
	var stdout, stderr bytes.Buffer
	done := make(chan error, 1)
	var code int
	go func() {
		var err error
		code, err = p.drain(tee(&stdout, cmd.Stdout), tee(&stderr, cmd.Stderr))
		done <- err
	}()
	err, timedOut := procs.Wait(ctx, done, cmd.Timeout, func() {
		kctx, kcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer kcancel()
		if p.signal(kctx, syscall.SIGKILL) != nil {
			cancel() // envd did not take the kill: stop waiting for it
		}
	})
	res := contexts.Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitCode: code, TimedOut: timedOut}
	switch {
	case timedOut:
		res.ExitCode = contexts.ExitTimeout
		return res, nil
	case ctx.Err() != nil:
		return res, ctx.Err()
	}
	return res, err
}

// Exec runs cmd to the end.
func (h *Handle) Exec(ctx context.Context, cmd contexts.Cmd) (contexts.Result, error) {
	return h.run(ctx, cmd, "")
}

// tagOf is the envd tag of background process id: the handle's id and
// the process number, so that the same handle reopened in another
// program re-attaches by the same id.
func (h *Handle) tagOf(id string) string { return h.St.ID + "-" + id }

// Start runs cmd in the background under its tag.
func (h *Handle) Start(ctx context.Context, cmd contexts.Cmd) (contexts.Process, error) {
	h.startMu.Lock()
	defer h.startMu.Unlock()
	next := strconv.Itoa(len(h.Procs.All()) + 1)
	p, argv, err := h.begin(context.WithoutCancel(ctx), cmd, h.tagOf(next), nil)
	if err != nil {
		return nil, err
	}
	bp := h.track(p, argv)
	go func() {
		code, _ := p.drain(bp.Out, bp.Err)
		bp.Finish(code)
	}()
	return bp, nil
}

func (h *Handle) track(p *proc, argv []string) *procs.Proc {
	bp := procs.New(argv, p.signal)
	h.Procs.Add(bp)
	return bp
}

// AttachProcess returns a process this handle started (its output
// replayed from the start), else re-attaches by tag to one the same
// handle started in another program: envd then gives the output from
// now on.
func (h *Handle) AttachProcess(ctx context.Context, id string) (contexts.Process, error) {
	if p, err := h.Base.AttachProcess(ctx, id); err == nil || errors.Is(err, contexts.ErrDestroyed) {
		return p, err
	}
	h.startMu.Lock()
	defer h.startMu.Unlock()
	tag := h.tagOf(id)
	s, err := h.envd.stream(context.WithoutCancel(ctx), wire.ProcConnect, &wire.ConnectRequest{Process: wire.ProcessSelector{Tag: &tag}})
	if err != nil {
		return nil, err
	}
	p := &proc{h: h, stream: s}
	if !s.Receive() {
		err := s.Err()
		if connect.CodeOf(err) == connect.CodeNotFound {
			return nil, contexts.Errorf(contexts.ErrNotFound, "e2b: no background process %q in sandbox %s", id, h.sandbox)
		}
		return nil, p.broke(err)
	}
	if ev := s.Msg().Event; ev.Start != nil {
		p.pid = ev.Start.Pid
	}
	bp := h.track(p, nil)
	go func() {
		code, _ := p.drain(bp.Out, bp.Err)
		bp.Finish(code)
	}()
	return bp, nil
}

// ReadFile reads through envd's /files.
func (h *Handle) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := h.Alive(); err != nil {
		return nil, err
	}
	return h.envd.read(ctx, h.Abs(p))
}

// WriteFile writes through envd's /files, which makes the parents and
// has no mode: perm is applied with chmod when it is not 0644.
func (h *Handle) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	if err := h.Alive(); err != nil {
		return err
	}
	full := h.Abs(p)
	if err := h.envd.write(ctx, full, data); err != nil {
		return err
	}
	return remote.Chmod(ctx, Kind, p, full, perm, func(ctx context.Context, argv []string) (contexts.Result, error) {
		return h.run(ctx, contexts.Cmd{Args: argv}, "")
	})
}

// ListFiles lists dir through filesystem.Filesystem/ListDir.
func (h *Handle) ListFiles(ctx context.Context, dir string) ([]contexts.FileInfo, error) {
	if err := h.Alive(); err != nil {
		return nil, err
	}
	res, err := unary[wire.ListDirRequest, wire.ListDirResponse](ctx, h.envd, wire.FsListDir, &wire.ListDirRequest{Path: h.Abs(dir), Depth: 1})
	if err != nil {
		return nil, err
	}
	out := make([]contexts.FileInfo, 0, len(res.Entries))
	for _, e := range res.Entries {
		fi := contexts.FileInfo{Name: path.Base(e.Name), Size: e.Size, Mode: fs.FileMode(e.Mode).Perm(), IsDir: e.Type == wire.FileTypeDir}
		if fi.IsDir {
			fi.Mode |= fs.ModeDir
		}
		out = append(out, fi)
	}
	return out, nil
}
