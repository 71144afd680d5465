// Package process is the process execution context: commands run as host
// child processes, and with isolation on (the default) every one of them
// runs under `zsandbox exec` with the context's writable roots, hidden
// paths and network setting. WriteFile applies the same writable roots
// in-process and ReadFile and ListFiles refuse hidden paths, both decided
// by the main module's policy package, so the rules exist once. When
// zsandbox is missing or untrustworthy every command fails with exit 127
// and nothing runs unsandboxed; isolation off is an explicit option.
package process

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/base"
	"github.com/zsandbox/zsandbox/policy"
)

// Kind is the registry name.
const Kind = "process"

func init() {
	contexts.Register(Kind, contexts.Factory{
		New: func(o contexts.Options) (contexts.Context, error) { return New(o) },
		Applies: []string{contexts.OptNetwork, contexts.OptWritable, contexts.OptHide,
			contexts.OptIsolation, contexts.OptZsandbox},
	})
}

// Context is the process context.
type Context struct {
	opts     contexts.Options
	isolated bool
}

// New returns a process context. Isolation is on unless opts.Isolation is
// "off".
func New(opts contexts.Options) (*Context, error) {
	c := &Context{opts: opts, isolated: true}
	switch opts.Isolation {
	case "", "on":
	case "off":
		c.isolated = false
	default:
		return nil, contexts.Errorf(contexts.ErrUsage, "isolation %q: must be on or off", opts.Isolation)
	}
	switch opts.Network {
	case "", contexts.NetworkDeny, contexts.NetworkAllow:
	default:
		return nil, contexts.Errorf(contexts.ErrUsage, "network %q: must be allow or deny", opts.Network)
	}
	return c, nil
}

// Kind returns "process".
func (c *Context) Kind() string { return Kind }

// Capabilities reports what host processes can do; Isolated only with
// isolation on.
func (c *Context) Capabilities() contexts.Capabilities {
	return contexts.Capabilities{Isolated: c.isolated, SeparateStderr: true, Stdin: true,
		Background: true, Terminal: true, AttachAcross: true}
}

// Spawn makes a handle rooted at cfg.Cwd (default: the current directory).
func (c *Context) Spawn(ctx context.Context, cfg contexts.SpawnConfig) (contexts.Handle, error) {
	cwd := cfg.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, contexts.Errorf(contexts.ErrUnavailable, "working directory: %v", err)
		}
		cwd = wd
	}
	id, err := contexts.NewID("p")
	if err != nil {
		return nil, err
	}
	return c.Attach(ctx, contexts.State{Kind: Kind, ID: id, Cwd: cwd, Env: cfg.Env, PassEnv: cfg.PassEnv})
}

// Attach reopens a handle from st. Nothing on the host belongs to a
// process handle but its background processes, which end with the program
// that started them.
func (c *Context) Attach(_ context.Context, st contexts.State) (contexts.Handle, error) {
	if st.Kind != Kind {
		return nil, contexts.Errorf(contexts.ErrUsage, "handle of kind %q given to the process context", st.Kind)
	}
	cwd, err := filepath.Abs(st.Cwd)
	if err != nil {
		return nil, contexts.Errorf(contexts.ErrUsage, "cwd %q: %v", st.Cwd, err)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, contexts.Errorf(contexts.ErrUsage, "cwd %q is not a directory", st.Cwd)
	}
	st.Cwd = cwd
	return &Handle{Base: base.New(st), ctx: c}, nil
}

// Handle is one process-context handle.
type Handle struct {
	base.Base
	ctx *Context

	mu    sync.Mutex // guards cmds and terms
	cmds  []running
	terms []*terminal
}

// spec is one command's resolved policy inputs.
type spec struct {
	cwd      string
	network  contexts.Network
	writable []string
	hide     []string
	protect  []string // the places zsandbox is looked up (lookupPlaces)
	env      []string
	passEnv  []string
}

// spec merges the handle's settings with cmd's.
func (h *Handle) spec(cwd string, env, passEnv []string) spec {
	n := h.ctx.opts.Network
	if n == "" {
		n = contexts.NetworkDeny
	}
	return spec{
		cwd:      h.Abs(cwd),
		network:  n,
		writable: h.ctx.opts.Writable,
		hide:     h.ctx.opts.Hide,
		protect:  lookupPlaces(h.ctx.opts.Zsandbox, os.Getenv("PATH")),
		env:      append(append([]string(nil), h.St.Env...), env...),
		passEnv:  append(append([]string(nil), h.St.PassEnv...), passEnv...),
	}
}

// resolve computes the policy zsandbox would enforce for sp, fresh for
// every call (a command may have made a repository since the last one).
func (h *Handle) resolve(sp spec) (*policy.Policy, error) {
	home, _ := os.UserHomeDir()
	req := policy.Request{Cwd: sp.cwd, Hide: sp.hide, Network: string(sp.network),
		SetEnv: sp.env, PassEnv: sp.passEnv}
	for _, w := range sp.writable {
		req.Writable = append(req.Writable, policy.Path{Path: w, Source: policy.SourceFlag})
	}
	for _, pr := range sp.protect {
		req.Protect = append(req.Protect, policy.Path{Path: pr, Source: policy.SourceFlag})
	}
	p, err := policy.Resolve(req, policy.Host{Cwd: sp.cwd, Home: home, Env: os.Environ()})
	if err != nil {
		var ue *policy.UsageError
		if errors.As(err, &ue) {
			return nil, contexts.Errorf(contexts.ErrUsage, "%v", err)
		}
		return nil, contexts.Errorf(contexts.ErrUnavailable, "%v", err)
	}
	return p, nil
}

// Destroy kills every background process and terminal; a second call is a
// no-op.
func (h *Handle) Destroy(context.Context) error {
	if h.MarkDestroyed() {
		return nil
	}
	h.mu.Lock()
	cmds, terms := h.cmds, h.terms
	h.mu.Unlock()
	for _, r := range cmds {
		if !r.proc.Ended() { // an ended one's pid may be reused
			killGroup(r.cmd)
		}
		<-r.proc.Done()
	}
	for _, t := range terms {
		t.Kill()
	}
	return nil
}
