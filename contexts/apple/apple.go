// Package apple is the execution context of Apple's `container` CLI
// (macOS 26 on Apple silicon: one lightweight VM per container). It has no
// Go API, so the context runs the CLI with argv arrays (argv.go, pure and
// golden-tested on every OS) and reads state as JSON. Real runs happen
// only on a Mac (scripts/ci-macos.sh).
package apple

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/base"
	"github.com/zsandbox/zsandbox/contexts/internal/shell"
	"github.com/zsandbox/zsandbox/policy"
)

// Kind is the registry name.
const Kind = "apple"

const (
	label   = "io.zsandbox.zctx"
	labelID = "io.zsandbox.zctx.id"
	// DefaultImage and DefaultCwd follow the docker context.
	DefaultImage = "oven/bun:latest"
	DefaultCwd   = "/workspace"
)

func init() {
	contexts.Register(Kind, contexts.Factory{
		New: func(o contexts.Options) (contexts.Context, error) { return New(o) },
		Applies: []string{contexts.OptNetwork, contexts.OptImage, contexts.OptMount, contexts.OptPort, contexts.OptUser,
			contexts.OptLimits, contexts.OptHide},
	})
}

func image(o contexts.Options) string {
	if o.Image != "" {
		return o.Image
	}
	return DefaultImage
}

// Context is the apple context.
type Context struct {
	opts contexts.Options
	bin  string // the container CLI
}

// New returns an apple context; the CLI is `container` on PATH (absolute
// entries only) unless opts.Extra["container"] names it.
func New(opts contexts.Options) (*Context, error) {
	return &Context{opts: opts, bin: opts.Extra["container"]}, nil
}

// Kind returns "apple".
func (c *Context) Kind() string { return Kind }

// Capabilities of a container VM driven by the CLI.
func (c *Context) Capabilities() contexts.Capabilities {
	return contexts.Capabilities{Isolated: true, SeparateStderr: true, Stdin: true, Background: true,
		Terminal: true, AttachAcross: true}
}

// cli finds the container CLI: on macOS only, the first `container` on
// PATH that no command could have planted (plantable). The local context
// runs every command through whatever answers `container --version`, on
// the host: a fake one in node_modules/.bin, ~/bin or /tmp, written by an
// earlier run, would run them all unsandboxed.
func (c *Context) cli() (string, error) {
	if c.bin != "" {
		return c.bin, nil
	}
	if runtime.GOOS != "darwin" {
		return "", contexts.Errorf(contexts.ErrUnavailable, "Apple's container runs only on macOS, not on %s", runtime.GOOS).
			WithHint("use --context docker (or local, which picks Docker here)")
	}
	var refused error
	for _, dir := range strings.Split(os.Getenv("PATH"), ":") {
		if strings.HasPrefix(dir, "/") {
			p := path.Join(dir, "container")
			if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
				continue
			}
			real, err := filepath.EvalSymlinks(p)
			why := plantable(p, os.Getenv("HOME"), os.Getenv("TMPDIR"))
			if why == "" && err != nil {
				why = err.Error()
			} else if why == "" {
				why = plantable(real, os.Getenv("HOME"), os.Getenv("TMPDIR"))
			}
			if why != "" {
				if refused == nil {
					refused = contexts.Errorf(contexts.ErrUnavailable, "refusing %s: %s, where an earlier run could have planted it", p, why).
						WithHint("install Apple's container from its signed package (/usr/local/bin/container), or name the CLI in Options.Extra[\"container\"]")
				}
				continue
			}
			return real, nil
		}
	}
	if refused != nil {
		return "", refused
	}
	return "", contexts.Errorf(contexts.ErrUnavailable, "Apple's container CLI is not installed").
		WithHint("on macOS 26 with Apple silicon install it from github.com/apple/container and run `container system start`")
}

// plantable says why a command could have written bin, or "": bin and
// every directory above it must be root's, writable by no group or other
// (the signed package installs it so), and outside home and the temporary
// directories, which commands may write.
func plantable(bin, home, tmpdir string) string {
	for _, shared := range []string{home, tmpdir, "/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/private/var/folders", "/var/folders"} {
		if shared != "" && policy.Within(bin, path.Clean(shared)) {
			return "it lies in " + shared
		}
	}
	for p := bin; ; p = path.Dir(p) {
		fi, err := os.Lstat(p)
		if err != nil {
			return err.Error()
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || st.Uid != 0 || fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSymlink == 0 {
			return p + " is not root's alone"
		}
		if p == "/" {
			return ""
		}
	}
}

// run runs the CLI with argv and returns its exit code.
func (c *Context) run(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	bin, err := c.cli()
	if err != nil {
		return contexts.ExitCannotRun, err
	}
	cmd := exec.CommandContext(ctx, bin, argv...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return contexts.ExitCannotRun, contexts.Errorf(contexts.ErrUnavailable, "%s: %v", bin, err)
	}
	return 0, nil
}

// output runs argv and returns stdout, failing on a non-zero exit.
func (c *Context) output(ctx context.Context, argv []string) ([]byte, error) {
	var out, errb bytes.Buffer
	code, err := c.run(ctx, argv, nil, &out, &errb)
	if err != nil {
		return nil, err
	}
	if code != 0 {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "container %s: exit %d: %s", argv[0], code, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// Probe says whether the CLI answers within 3 s and its system service
// runs (the desktop app's rule).
func (c *Context) Probe(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := c.output(pctx, versionArgs()); err != nil {
		return err
	}
	if _, err := c.output(ctx, statusArgs()); err != nil {
		return contexts.Errorf(contexts.ErrUnavailable, "Apple's container system service is not running: %v", err).
			WithHint("run `container system start`")
	}
	return nil
}

// Spawn runs the handle's container.
func (c *Context) Spawn(ctx context.Context, cfg contexts.SpawnConfig) (contexts.Handle, error) {
	id, err := contexts.NewID("a")
	if err != nil {
		return nil, err
	}
	cwd := cfg.Cwd
	if cwd == "" {
		cwd = DefaultCwd
	}
	// The image is the CLI's first positional argument: one that looks
	// like an option ("--volume=/:/host") would be parsed as one.
	if strings.HasPrefix(image(c.opts), "-") {
		return nil, contexts.Errorf(contexts.ErrUsage, "image %q: an image name cannot start with -", image(c.opts))
	}
	if len(c.opts.Ports) > 0 && c.opts.Network != contexts.NetworkAllow {
		return nil, contexts.Errorf(contexts.ErrUsage, "published ports need the network: add --network allow")
	}
	opts := c.opts
	if opts.Mounts, err = contexts.CheckMounts(opts.Mounts, opts.Hide); err != nil {
		return nil, err
	}
	name := "zctx-" + id
	user := runUser(opts, os.Getuid(), os.Getgid())
	if _, err := c.output(ctx, runArgs(name, id, opts, cwd, contexts.WithPassed(cfg.Env, cfg.PassEnv), user)); err != nil {
		c.run(context.WithoutCancel(ctx), rmArgs(name), nil, io.Discard, io.Discard)
		return nil, err
	}
	return c.newHandle(contexts.State{Kind: Kind, ID: id, Cwd: cwd, Env: cfg.Env, PassEnv: cfg.PassEnv,
		Extra: map[string]string{"container": name, "user": user}}), nil
}

// runUser: as in the docker context, the caller owns what a command
// writes into a bind-mounted directory.
func runUser(o contexts.Options, uid, gid int) string {
	if o.User != "" || len(o.Mounts) == 0 {
		return o.User
	}
	return strconv.Itoa(uid) + ":" + strconv.Itoa(gid)
}

// snapshot is the part of `container ls --format json` Attach reads.
type snapshot struct {
	Status        string `json:"status"`
	Configuration struct {
		ID string `json:"id"`
	} `json:"configuration"`
}

// Attach reopens a handle whose container runs.
func (c *Context) Attach(ctx context.Context, st contexts.State) (contexts.Handle, error) {
	if st.Kind != Kind || st.Extra["container"] == "" {
		return nil, contexts.Errorf(contexts.ErrUsage, "not an apple handle: kind %q", st.Kind)
	}
	out, err := c.output(ctx, listArgs())
	if err != nil {
		return nil, err
	}
	running, _, err := find(out, st.Extra["container"])
	if err != nil {
		return nil, err
	}
	if !running {
		return nil, contexts.Errorf(contexts.ErrNotFound, "the container of handle %s is not running", st.ID)
	}
	return c.newHandle(st), nil
}

// find looks name up in the JSON listing.
func find(listing []byte, name string) (running, present bool, err error) {
	var snaps []snapshot
	if err := json.Unmarshal(listing, &snaps); err != nil {
		return false, false, contexts.Errorf(contexts.ErrUnavailable, "container ls --format json: %v", err)
	}
	for _, s := range snaps {
		if s.Configuration.ID == name {
			return s.Status == "running", true, nil
		}
	}
	return false, false, nil
}

func (c *Context) newHandle(st contexts.State) *Handle {
	return &Handle{Base: base.New(st), c: c, name: st.Extra["container"], user: st.Extra["user"]}
}

// Handle is one container.
type Handle struct {
	base.Base
	c    *Context
	name string
	user string
}

// Destroy removes the container; idempotent.
func (h *Handle) Destroy(ctx context.Context) error {
	h.MarkDestroyed()
	var errb bytes.Buffer
	code, err := h.c.run(ctx, rmArgs(h.name), nil, io.Discard, &errb)
	if err != nil {
		return err
	}
	if code == 0 {
		return nil
	}
	// rm of a container that is gone fails; gone is what Destroy wants.
	out, lerr := h.c.output(ctx, listArgs())
	if lerr == nil {
		if _, present, _ := find(out, h.name); !present {
			return nil
		}
	}
	return contexts.Errorf(contexts.ErrUnavailable, "container rm: exit %d: %s", code, strings.TrimSpace(errb.String()))
}

// execArgv is the CLI argv for cmd, marked for kills.
func (h *Handle) execArgv(cmd contexts.Cmd, tty bool) ([]string, []string, string, error) {
	if err := h.Alive(); err != nil {
		return nil, nil, "", err
	}
	argv, err := cmd.Argv()
	if err != nil {
		return nil, nil, "", err
	}
	mark, err := contexts.NewID("m")
	if err != nil {
		return nil, nil, "", err
	}
	env := append(contexts.WithPassed(cmd.Env, cmd.PassEnv), shell.Mark+"="+mark)
	return execArgs(h.name, h.Abs(cmd.Cwd), h.user, env, cmd.Stdin != nil || tty, tty, shell.Exec(argv)), argv, mark, nil
}

// kill signals the processes of the exec marked mark.
func (h *Handle) kill(mark string, sig syscall.Signal) error {
	_, err := h.c.run(context.Background(), execArgs(h.name, "", h.user, nil, false, false, shell.KillArgs(int(sig), mark)), nil, io.Discard, io.Discard)
	return err
}
