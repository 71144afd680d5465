// Package local is the desktop app's rule for where a session's commands
// run on this machine: Apple's container when `container --version`
// answers within 3 s and its system service runs, else Docker when the
// daemon answers within 5 s, else nothing: every command is refused
// (exit 127) with a message naming both fixes. There is no soft fallback
// (no host process, no path tricks), ever. One container per handle (the
// session), reused while it runs, removed by Destroy; the host's working
// directory is mounted at /workspace unless other mounts are given.
package local

import (
	"context"
	"sync"
	"syscall"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/apple"
	"github.com/zsandbox/zsandbox/contexts/docker"
)

// Kind is the registry name.
const Kind = "local"

func init() {
	contexts.Register(Kind, contexts.Factory{
		New: func(o contexts.Options) (contexts.Context, error) { return New(o) },
		Applies: []string{contexts.OptNetwork, contexts.OptImage, contexts.OptMount, contexts.OptPort, contexts.OptUser,
			contexts.OptLimits, contexts.OptHost, contexts.OptHide},
	})
}

// Context is the local context; the runtime is chosen once, at the first
// Spawn, and kept for the context's life.
type Context struct {
	opts contexts.Options

	once    sync.Once
	runtime contexts.Context
	err     error
}

// New returns a local context (nothing is probed yet).
func New(opts contexts.Options) (*Context, error) { return &Context{opts: opts}, nil }

// Kind returns "local".
func (c *Context) Kind() string { return Kind }

// Capabilities are the container contexts' (both report the same).
func (c *Context) Capabilities() contexts.Capabilities {
	d, _ := docker.New(c.opts)
	return d.Capabilities()
}

// noRuntime is the refusal, with the desktop app's message and both fixes.
func noRuntime(appleErr, dockerErr error) error {
	return contexts.Errorf(contexts.ErrUnavailable,
		"no container runtime detected (Apple container: %v; Docker: %v); nothing ran", appleErr, dockerErr).
		WithHint("install Docker Desktop (or start the Docker daemon: `docker info` must answer), or upgrade to macOS 26 on Apple silicon for Apple's container and run `container system start`")
}

// choose applies the rule.
func (c *Context) choose(ctx context.Context) (contexts.Context, error) {
	c.once.Do(func() {
		a, _ := apple.New(c.opts)
		appleErr := a.Probe(ctx)
		if appleErr == nil {
			c.runtime = a
			return
		}
		d, err := docker.New(c.opts)
		if err != nil {
			c.err = err
			return
		}
		dockerErr := d.Ping(ctx, 5*time.Second)
		if dockerErr == nil {
			c.runtime = d
			return
		}
		c.err = noRuntime(appleErr, dockerErr)
	})
	return c.runtime, c.err
}

// Runtime returns the chosen runtime's kind ("apple" or "docker").
func (c *Context) Runtime(ctx context.Context) (string, error) {
	r, err := c.choose(ctx)
	if err != nil {
		return "", err
	}
	return r.Kind(), nil
}

// Spawn starts the session's container in the chosen runtime.
func (c *Context) Spawn(ctx context.Context, cfg contexts.SpawnConfig) (contexts.Handle, error) {
	if len(c.opts.Mounts) == 0 {
		// The kernel's cwd, not $PWD: CheckMounts vouches for no
		// symlink a container could have made, and $PWD may hold one.
		wd, err := syscall.Getwd()
		if err != nil {
			return nil, contexts.Errorf(contexts.ErrUnavailable, "working directory: %v", err)
		}
		c.opts.Mounts = []contexts.Mount{{Source: wd, Target: docker.DefaultCwd}}
	}
	r, err := c.choose(ctx)
	if err != nil {
		return nil, err
	}
	h, err := r.Spawn(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return wrap(h, r.Kind()), nil
}

// Attach reopens a session's container in the runtime that made it.
func (c *Context) Attach(ctx context.Context, st contexts.State) (contexts.Handle, error) {
	if st.Kind != Kind {
		return nil, contexts.Errorf(contexts.ErrUsage, "not a local handle: kind %q", st.Kind)
	}
	var r contexts.Context
	var err error
	switch st.Extra["runtime"] {
	case apple.Kind:
		r, err = apple.New(c.opts)
	case docker.Kind:
		r, err = docker.New(c.opts)
	default:
		return nil, contexts.Errorf(contexts.ErrUsage, "local handle %s names no runtime", st.ID)
	}
	if err != nil {
		return nil, err
	}
	inner := st
	inner.Kind = st.Extra["runtime"]
	h, err := r.Attach(ctx, inner)
	if err != nil {
		return nil, err
	}
	return wrap(h, inner.Kind), nil
}

// handle is the runtime's handle, reporting itself as a local one.
type handle struct {
	contexts.Handle
	runtime string
}

func wrap(h contexts.Handle, runtime string) contexts.Handle {
	return &handle{Handle: h, runtime: runtime}
}

// State names the runtime, so that Attach goes back to it (and never to
// another one).
func (h *handle) State() contexts.State {
	st := h.Handle.State()
	extra := map[string]string{"runtime": h.runtime}
	for k, v := range st.Extra {
		extra[k] = v
	}
	st.Kind, st.Extra = Kind, extra
	return st
}
