// Package remote is what the remote-sandbox contexts (e2b, daytona) share:
// the pregame script's rules (a plain name under /tmp, its shebang or sh,
// a non-zero exit aborts the spawn), the short tail of an output an error
// quotes, and killing a handle's background processes.
package remote

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/procs"
)

// PregameTimeout bounds the setup script, as the seeds say.
const PregameTimeout = 30 * time.Minute

// Pregame is a setup script, uploaded to /tmp/<Name>.
type Pregame struct {
	Name    string
	Content []byte
}

// Path is where the script is uploaded.
func (p *Pregame) Path() string { return "/tmp/" + p.Name }

// Argv runs the uploaded script: by its own shebang when it has one,
// else by sh.
func (p *Pregame) Argv() []string {
	return []string{"/bin/sh", "-c", `if head -c2 "$1" | grep -q '^#!'; then chmod +x "$1" && exec "$1"; fi; exec /bin/sh "$1"`, "sh", p.Path()}
}

// LoadPregame returns given, or the script read from file (zctx's
// --pregame), with its name checked; nil when neither is set.
func LoadPregame(kind string, given *Pregame, file string) (*Pregame, error) {
	pre := given
	if pre == nil && file != "" {
		b, err := readScript(file)
		if err != nil {
			return nil, contexts.Errorf(contexts.ErrUsage, "%s: --pregame: %v", kind, err)
		}
		pre = &Pregame{Name: path.Base(file), Content: b}
	}
	if pre != nil && (pre.Name == "" || pre.Name == "." || pre.Name == ".." || strings.ContainsAny(pre.Name, "/\x00")) {
		return nil, contexts.Errorf(contexts.ErrUsage, "%s: pregame name %q: want a plain file name", kind, pre.Name)
	}
	return pre, nil
}

// maxPregame bounds a pregame script: it is uploaded whole.
const maxPregame = 16 << 20

// readScript reads a regular file of at most maxPregame bytes. Opened
// without blocking and checked on the descriptor, so a FIFO or a device
// (/dev/zero) is refused instead of hanging or filling memory.
func readScript(file string) ([]byte, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", file)
	case fi.Size() > maxPregame:
		return nil, fmt.Errorf("%s is %d bytes, more than the %d a pregame script may have", file, fi.Size(), maxPregame)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPregame+1))
	if err == nil && len(b) > maxPregame {
		err = fmt.Errorf("%s grew past %d bytes while read", file, maxPregame)
	}
	return b, err
}

// PregameFailed is the error of a script that exited non-zero.
func PregameFailed(kind string, pre *Pregame, code int, output []byte) error {
	return contexts.Errorf(contexts.ErrUnavailable, "%s: pregame %s exited %d: %s", kind, pre.Name, code, Tail(output)).
		WithHint("the run was aborted; fix the script (it ran as " + pre.Path() + ")")
}

// Tail is the end of an output, short enough for an error line.
func Tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 500 {
		s = "…" + s[len(s)-500:]
	}
	return s
}

// Redact replaces each secret (an API key, a token) in s: a service's or
// a proxy's error body may echo the request's headers, and an error
// quotes that body.
func Redact(s string, secrets ...string) string {
	for _, v := range secrets {
		if v != "" {
			s = strings.ReplaceAll(s, v, "[redacted]")
		}
	}
	return s
}

// FirstOf returns the first value that is set.
func FirstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// KillAll kills every background process of t that still runs.
func KillAll(ctx context.Context, t *procs.Table) {
	for _, p := range t.All() {
		if !p.Ended() {
			p.Signal(ctx, syscall.SIGKILL)
		}
	}
}

// Setup is what a remote spawn does once the sandbox exists, in order:
// wait until it answers, make (or find) the cwd, clone the repository,
// run the pregame. Any failure removes the sandbox when this spawn
// created it, and only then.
type Setup struct {
	Kind    string
	Created bool
	Ready   func(context.Context) error
	Cwd     func(context.Context) error
	Clone   *Clone
	Pregame *Pregame
	// Exec runs a command of the new handle (the clone's).
	Exec       func(context.Context, contexts.Cmd) (contexts.Result, error)
	RunPregame func(context.Context, *Pregame) error
	// Remove deletes the created sandbox; Moved gets the clone's dir,
	// the handle's cwd from then on.
	Remove func(context.Context)
	Moved  func(dir string)
	// CurrentCwd is the cwd once Cwd has run.
	CurrentCwd func() string
}

// Run runs the steps.
func (s Setup) Run(ctx context.Context) error {
	err := s.steps(ctx)
	if err != nil && s.Created {
		s.Remove(context.WithoutCancel(ctx))
	}
	return err
}

func (s Setup) steps(ctx context.Context) error {
	if err := s.Ready(ctx); err != nil {
		return err
	}
	if err := s.Cwd(ctx); err != nil {
		return err
	}
	if s.Clone != nil {
		dir, err := s.Clone.Run(ctx, s.Kind, s.CurrentCwd(), HostLookup, s.Exec)
		if err != nil {
			return err
		}
		s.Moved(dir)
	}
	if s.Pregame != nil {
		return s.RunPregame(ctx, s.Pregame)
	}
	return nil
}

// Chmod gives an uploaded file perm: the services' uploads have no mode
// and make 0644, so only another mode costs a command (run, argv).
func Chmod(ctx context.Context, kind, shown, full string, perm fs.FileMode, run func(context.Context, []string) (contexts.Result, error)) error {
	if perm == 0 || perm.Perm() == 0o644 {
		return nil
	}
	r, err := run(ctx, []string{"chmod", strconv.FormatUint(uint64(perm.Perm()), 8), "--", full})
	if err == nil && r.ExitCode != 0 {
		err = contexts.Errorf(contexts.ErrUnavailable, "%s: chmod %q: %s", kind, shown, Tail(append(r.Stderr, r.Stdout...)))
	}
	return err
}
