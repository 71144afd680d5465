package daytona

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	toolbox "github.com/daytonaio/daytona/libs/toolbox-api-client-go"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/base"
	"github.com/zsandbox/zsandbox/contexts/internal/procs"
	"github.com/zsandbox/zsandbox/contexts/internal/remote"
	"github.com/zsandbox/zsandbox/contexts/internal/shell"
)

// Handle is one sandbox.
type Handle struct {
	base.Base
	c       *Context
	sandbox string
	tb      *toolbox.APIClient
	kept    string

	sessionMu sync.Mutex
	sessionOK bool
}

// wrapper runs "$@" with stdin from $4, stdout to $2, stderr to $3, in
// $1, marked with $5 (shell.Mark), after exporting the KEY=VALUE words
// up to "--". Every variable part is a positional argument. The stdin
// file goes as soon as it is open: it may hold a secret (a clone's
// token), which must not sit in the sandbox while the command runs.
const wrapper = `exec < "$4" > "$2" 2> "$3"
[ "$4" = /dev/null ] || rm -f -- "$4"
cd -- "$1" || exit 1
export ` + shell.Mark + `="$5"
shift 5
while [ "$1" != -- ]; do export "$1"; shift; done
shift
exec "$@"`

// words joins argv into one sh command line.
func words(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}

// run is one wrapped command in the sandbox.
type run struct {
	h                  *Handle
	mark, out, err, in string
	cmdID              string
}

func (h *Handle) sessionID() string { return "zctx-" + h.St.ID }

// session makes the handle's toolbox session until that succeeds
// (another program's handle may have made it already: 409 is fine).
func (h *Handle) session(ctx context.Context) error {
	h.sessionMu.Lock()
	defer h.sessionMu.Unlock()
	if h.sessionOK {
		return nil
	}
	res, err := h.tb.ProcessAPI.CreateSession(ctx).Request(*toolbox.NewCreateSessionRequest(h.sessionID())).Execute()
	if err != nil && (res == nil || res.StatusCode != http.StatusConflict) {
		return h.c.apiErr("create session in sandbox "+h.sandbox, res, err)
	}
	h.sessionOK = true
	return nil
}

// env is what every command gets: the provider's env (re-sent, as the
// seeds say), the spawn's, the command's and its passed variables.
func (h *Handle) env(cmd contexts.Cmd) []string {
	var out []string
	for k, v := range h.c.opts.Env {
		out = append(out, k+"="+v)
	}
	out = append(out, h.St.Env...)
	return append(out, contexts.WithPassed(cmd.Env, cmd.PassEnv)...)
}

// begin uploads stdin and starts cmd as a session command.
func (h *Handle) begin(ctx context.Context, cmd contexts.Cmd) (*run, []string, error) {
	if err := h.Alive(); err != nil {
		return nil, nil, err
	}
	argv, err := cmd.Argv()
	if err != nil {
		return nil, nil, err
	}
	if err := h.session(ctx); err != nil {
		return nil, nil, err
	}
	mark, err := contexts.NewID("m")
	if err != nil {
		return nil, nil, err
	}
	dir := "/tmp/.zctx-" + h.St.ID
	r := &run{h: h, mark: mark, out: dir + "/" + mark + ".out", err: dir + "/" + mark + ".err", in: "/dev/null"}
	if cmd.Stdin != nil {
		data, err := io.ReadAll(cmd.Stdin)
		if err != nil {
			return nil, nil, contexts.Errorf(contexts.ErrUsage, "daytona: stdin: %v", err)
		}
		r.in = dir + "/" + mark + ".in"
		if err := h.upload(ctx, r.in, data); err != nil {
			return nil, nil, err
		}
	}
	line := append([]string{"/bin/sh", "-c", "mkdir -p -- \"$1\" && shift && exec /bin/sh -c \"$@\"", "zctx", dir, wrapper, "zctx",
		h.Abs(cmd.Cwd), r.out, r.err, r.in, mark}, h.env(cmd)...)
	line = append(append(line, "--"), argv...)
	req := toolbox.NewSessionExecuteRequest(words(line))
	req.SetRunAsync(true)
	resp, res, err := h.tb.ProcessAPI.SessionExecuteCommand(ctx, h.sessionID()).Request(*req).Execute()
	if err != nil {
		return nil, nil, h.c.apiErr("exec in sandbox "+h.sandbox, res, err)
	}
	r.cmdID = resp.CmdId
	return r, argv, nil
}

// exitCode asks whether the command has ended.
func (r *run) exitCode(ctx context.Context) (*int32, error) {
	c, res, err := r.h.tb.ProcessAPI.GetSessionCommand(ctx, r.h.sessionID(), r.cmdID).Execute()
	if err != nil {
		return nil, r.h.c.apiErr("command status in sandbox "+r.h.sandbox, res, err)
	}
	return c.ExitCode, nil
}

// wait polls until the command has ended.
func (r *run) wait(ctx context.Context, tick func()) (int, error) {
	for delay := 10 * time.Millisecond; ; delay = min(delay*2, 200*time.Millisecond) {
		code, err := r.exitCode(ctx)
		if err != nil {
			return contexts.ExitCannotRun, err
		}
		if tick != nil {
			tick()
		}
		if code != nil {
			return int(*code), nil
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return contexts.ExitCannotRun, ctx.Err()
		}
	}
}

// signal sends sig to every process of the command.
func (r *run) signal(ctx context.Context, sig syscall.Signal) error {
	_, err := r.h.execute(ctx, words(shell.KillArgs(int(sig), r.mark)), 30*time.Second)
	return err
}

// output downloads what the command wrote so far.
func (r *run) output(ctx context.Context) (stdout, stderr []byte, err error) {
	if stdout, err = r.h.download(ctx, r.out); err != nil {
		return nil, nil, err
	}
	stderr, err = r.h.download(ctx, r.err)
	return stdout, stderr, err
}

func (r *run) cleanup(ctx context.Context) {
	files := []string{"rm", "-f", "--", r.out, r.err}
	if r.in != "/dev/null" {
		files = append(files, r.in)
	}
	r.h.execute(ctx, words(files), 30*time.Second)
}

// Exec runs cmd to the end; past cmd.Timeout (or when ctx ends) it kills
// the command's tree and reports 124. Output reaches Cmd.Stdout and
// Cmd.Stderr when the command has ended.
func (h *Handle) Exec(ctx context.Context, cmd contexts.Cmd) (contexts.Result, error) {
	bg := context.WithoutCancel(ctx)
	r, _, err := h.begin(ctx, cmd)
	if err != nil {
		return contexts.Result{ExitCode: contexts.ExitCannotRun, Stderr: []byte(err.Error() + "\n")}, err
	}
	defer r.cleanup(bg)
	pollCtx, stop := context.WithCancel(bg)
	defer stop()
	done := make(chan error, 1)
	var code int
	go func() {
		var err error
		code, err = r.wait(pollCtx, nil)
		done <- err
	}()
	err, timedOut := procs.Wait(ctx, done, cmd.Timeout, func() {
		if r.signal(bg, syscall.SIGKILL) != nil {
			stop()
		}
	})
	res := contexts.Result{ExitCode: code, TimedOut: timedOut}
	if timedOut {
		res.ExitCode = contexts.ExitTimeout
	}
	if err != nil && !timedOut {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, err
	}
	if res.Stdout, res.Stderr, err = r.output(bg); err != nil {
		return res, err
	}
	for _, w := range []struct {
		to   io.Writer
		data []byte
	}{{cmd.Stdout, res.Stdout}, {cmd.Stderr, res.Stderr}} {
		if w.to != nil {
			w.to.Write(w.data)
		}
	}
	return res, ctx.Err()
}

// Start runs cmd in the background: its output is fetched while it runs.
func (h *Handle) Start(ctx context.Context, cmd contexts.Cmd) (contexts.Process, error) {
	bg := context.WithoutCancel(ctx)
	r, argv, err := h.begin(bg, cmd)
	if err != nil {
		return nil, err
	}
	p := procs.New(argv, r.signal)
	h.Procs.Add(p)
	go func() {
		var sentOut, sentErr int
		fetch := func() {
			out, errb, err := r.output(bg)
			if err != nil {
				return
			}
			if len(out) > sentOut {
				p.Out.Write(out[sentOut:])
				sentOut = len(out)
			}
			if len(errb) > sentErr {
				p.Err.Write(errb[sentErr:])
				sentErr = len(errb)
			}
		}
		code, err := r.wait(bg, fetch)
		if err != nil {
			code = contexts.ExitCannotRun
		}
		fetch()
		r.cleanup(bg)
		p.Finish(code)
	}()
	return p, nil
}

// OpenTerminal is not supported: Daytona's PTY is a WebSocket (the
// v0.190.0 toolbox spec's GET /process/pty/{id}/connect answers 101; the
// SDK 0.218.0 dials /process/pty/create-connect, which that spec lacks),
// and the official generated toolbox client cannot upgrade a connection,
// so only a hand-written WebSocket client could speak it.
func (h *Handle) OpenTerminal(context.Context, contexts.TerminalConfig) (contexts.Terminal, error) {
	return nil, contexts.Errorf(contexts.ErrUnsupported,
		"daytona: terminals are not supported (Daytona's PTY is a WebSocket, which the official toolbox client cannot open)")
}

// upload writes data to p with the toolbox's upload call (the generated
// client sends a file, so the bytes go through a private temp file). The
// generated client leaves an empty file out of the form, so an empty
// file is made with a command instead.
func (h *Handle) upload(ctx context.Context, p string, data []byte) error {
	if len(data) == 0 {
		r, err := h.execute(ctx, words([]string{"/bin/sh", "-c", `mkdir -p -- "$(dirname -- "$1")" && : > "$1"`, "zctx", p}), time.Minute)
		if err == nil && r.ExitCode != 0 {
			err = contexts.Errorf(contexts.ErrUnavailable, "daytona: write %q: %s", p, remote.Tail(r.Stdout))
		}
		return err
	}
	f, err := os.CreateTemp("", "zctx-daytona-")
	if err != nil {
		return contexts.Errorf(contexts.ErrUnavailable, "daytona: upload: %v", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return contexts.Errorf(contexts.ErrUnavailable, "daytona: upload: %v", err)
	}
	f.Seek(0, io.SeekStart)
	_, res, err := h.tb.FileSystemAPI.UploadFile(ctx).Path(p).File(f).Execute()
	return h.c.apiErr("upload "+p+" to sandbox "+h.sandbox, res, err)
}

func (h *Handle) download(ctx context.Context, p string) ([]byte, error) {
	f, res, err := h.tb.FileSystemAPI.DownloadFile(ctx).Path(p).Execute()
	if err != nil {
		return nil, h.c.apiErr("download "+p+" from sandbox "+h.sandbox, res, err)
	}
	if f == nil { // the generated client makes no file of an empty body
		return []byte{}, nil
	}
	defer os.Remove(f.Name())
	defer f.Close()
	f.Seek(0, io.SeekStart)
	return io.ReadAll(f)
}

// ReadFile downloads p.
func (h *Handle) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := h.Alive(); err != nil {
		return nil, err
	}
	return h.download(ctx, h.Abs(p))
}

// WriteFile uploads data; a mode other than 0644 is set with chmod.
func (h *Handle) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	if err := h.Alive(); err != nil {
		return err
	}
	full := h.Abs(p)
	if err := h.upload(ctx, full, data); err != nil {
		return err
	}
	return remote.Chmod(ctx, Kind, p, full, perm, func(ctx context.Context, argv []string) (contexts.Result, error) {
		return h.execute(ctx, words(argv), time.Minute)
	})
}

// ListFiles lists dir with the toolbox.
func (h *Handle) ListFiles(ctx context.Context, dir string) ([]contexts.FileInfo, error) {
	if err := h.Alive(); err != nil {
		return nil, err
	}
	list, res, err := h.tb.FileSystemAPI.ListFiles(ctx).Path(h.Abs(dir)).Execute()
	if err != nil {
		return nil, h.c.apiErr("list "+dir+" in sandbox "+h.sandbox, res, err)
	}
	out := make([]contexts.FileInfo, 0, len(list))
	for _, f := range list {
		mode, _ := strconv.ParseUint(strings.TrimPrefix(f.Mode, "0"), 8, 32)
		fi := contexts.FileInfo{Name: path.Base(f.Name), Size: int64(f.Size), Mode: fs.FileMode(mode).Perm(), IsDir: f.IsDir}
		if fi.IsDir {
			fi.Mode |= fs.ModeDir
		}
		out = append(out, fi)
	}
	return out, nil
}
