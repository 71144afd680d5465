// Package docker is the docker execution context: one hardened container
// per handle on a Docker daemon, through the official Engine client
// (github.com/moby/moby/client, which negotiates the API version down to
// the daemon's: Debian's docker.io 20.10 speaks 1.41). The container runs
// `sleep infinity` under an init process; commands are execs with stdout
// and stderr apart; files go through the archive API; Destroy removes the
// container.
package docker

import (
	"context"
	"errors"
	"path"
	"path/filepath"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/base"
	"github.com/zsandbox/zsandbox/policy"
)

// Kind is the registry name.
const Kind = "docker"

// DefaultCwd is the seeds' working directory.
const DefaultCwd = "/workspace"

func init() {
	contexts.Register(Kind, contexts.Factory{
		New: func(o contexts.Options) (contexts.Context, error) { return New(o) },
		Applies: []string{contexts.OptNetwork, contexts.OptImage, contexts.OptMount, contexts.OptPort, contexts.OptUser,
			contexts.OptLimits, contexts.OptHost, contexts.OptHide},
	})
}

// Context is the docker context.
type Context struct {
	opts contexts.Options
	cli  *client.Client
}

// New returns a docker context for the daemon at opts.Host (default
// DOCKER_HOST, then the local socket). It does not contact the daemon.
func New(opts contexts.Options) (*Context, error) {
	copts := []client.Opt{client.FromEnv}
	if opts.Host != "" {
		copts = append(copts, client.WithHost(opts.Host))
	}
	cli, err := client.New(copts...)
	if err != nil {
		return nil, contexts.Errorf(contexts.ErrUsage, "docker host: %v", err)
	}
	switch opts.Network {
	case "", contexts.NetworkDeny, contexts.NetworkAllow:
	default:
		return nil, contexts.Errorf(contexts.ErrUsage, "network %q: must be allow or deny", opts.Network)
	}
	return &Context{opts: opts, cli: cli}, nil
}

// Kind returns "docker".
func (c *Context) Kind() string { return Kind }

// Capabilities of a container.
func (c *Context) Capabilities() contexts.Capabilities {
	return contexts.Capabilities{Isolated: true, SeparateStderr: true, Stdin: true, Background: true,
		Terminal: true, AttachAcross: true}
}

// Ping checks that the daemon answers within d.
func (c *Context) Ping(ctx context.Context, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if _, err := c.cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err != nil {
		return contexts.Errorf(contexts.ErrUnavailable, "the Docker daemon at %s does not answer: %v", c.cli.DaemonHost(), err).
			WithHint("start the Docker daemon, or point --docker-host / DOCKER_HOST at one")
	}
	return nil
}

// Spawn creates and starts the handle's container, pulling a missing image.
func (c *Context) Spawn(ctx context.Context, cfg contexts.SpawnConfig) (contexts.Handle, error) {
	if err := c.Ping(ctx, 5*time.Second); err != nil {
		return nil, err
	}
	id, err := contexts.NewID("d")
	if err != nil {
		return nil, err
	}
	cwd := cfg.Cwd
	if cwd == "" {
		cwd = DefaultCwd
	}
	if !path.IsAbs(cwd) {
		return nil, contexts.Errorf(contexts.ErrUsage, "cwd %q: a container path must be absolute", cwd)
	}
	opts := c.opts
	if opts.Mounts, err = contexts.CheckMounts(opts.Mounts, opts.Hide); err != nil {
		return nil, err
	}
	if err := c.noDaemonSocket(opts.Mounts); err != nil {
		return nil, err
	}
	p, err := createPlan(id, opts, cwd, contexts.WithPassed(cfg.Env, cfg.PassEnv), getuid(), getgid())
	if err != nil {
		return nil, err
	}
	if err := c.ensureImage(ctx, p.Config.Image); err != nil {
		return nil, err
	}
	res, err := c.cli.ContainerCreate(ctx, client.ContainerCreateOptions{Name: p.Name, Config: p.Config, HostConfig: p.Host})
	if err != nil {
		return nil, c.apiErr("create container", err)
	}
	h := c.newHandle(contexts.State{Kind: Kind, ID: id, Cwd: cwd, Env: cfg.Env, PassEnv: cfg.PassEnv,
		Extra: map[string]string{"container": res.ID}}, p.Config.User)
	if _, err := c.cli.ContainerStart(ctx, res.ID, client.ContainerStartOptions{}); err != nil {
		h.Destroy(context.WithoutCancel(ctx))
		return nil, c.apiErr("start container", err)
	}
	if err := h.ownCwd(ctx); err != nil {
		h.Destroy(context.WithoutCancel(ctx))
		return nil, err
	}
	return h, nil
}

// noDaemonSocket refuses a mount that holds the daemon's own socket
// without naming it (--mount /run:/run): through it the container is root
// on the host. Mounting the socket itself is the explicit opt-in.
func (c *Context) noDaemonSocket(mounts []contexts.Mount) error {
	sock, ok := strings.CutPrefix(c.cli.DaemonHost(), "unix://")
	if !ok {
		return nil
	}
	if real, err := filepath.EvalSymlinks(sock); err == nil {
		sock = real
	}
	for _, m := range mounts {
		if m.Source != sock && policy.Within(sock, m.Source) {
			return contexts.Errorf(contexts.ErrDenied, "mount %q holds the Docker daemon's socket %s: through it the container would be root on the host", m.Source, sock).
				WithHint("mount a directory without it; to give the container the daemon on purpose, mount the socket itself (--mount " + sock + ":/var/run/docker.sock)")
		}
	}
	return nil
}

// ensureImage pulls img unless the daemon has it.
func (c *Context) ensureImage(ctx context.Context, img string) error {
	if _, err := c.cli.ImageInspect(ctx, img); err == nil {
		return nil
	} else if !cerrdefs.IsNotFound(err) {
		return c.apiErr("inspect image", err)
	}
	resp, err := c.cli.ImagePull(ctx, img, client.ImagePullOptions{})
	if err == nil {
		err = resp.Wait(ctx)
	}
	if err != nil {
		return contexts.Errorf(contexts.ErrNotFound, "image %q is not on the daemon and cannot be pulled: %v", img, err).
			WithHint("build or load the image (docker build / docker load), or name another with --image")
	}
	return nil
}

// Attach reopens a handle whose container still runs.
func (c *Context) Attach(ctx context.Context, st contexts.State) (contexts.Handle, error) {
	if st.Kind != Kind || st.Extra["container"] == "" {
		return nil, contexts.Errorf(contexts.ErrUsage, "not a docker handle: kind %q", st.Kind)
	}
	res, err := c.cli.ContainerInspect(ctx, st.Extra["container"], client.ContainerInspectOptions{})
	if err != nil {
		return nil, c.apiErr("container of handle "+st.ID, err)
	}
	if res.Container.State == nil || !res.Container.State.Running {
		return nil, contexts.Errorf(contexts.ErrNotFound, "the container of handle %s is not running", st.ID).
			WithHint("zctx destroy " + st.ID + " removes it; zctx spawn makes a new one")
	}
	user := ""
	if res.Container.Config != nil {
		user = res.Container.Config.User
	}
	return c.newHandle(st, user), nil
}

func (c *Context) newHandle(st contexts.State, user string) *Handle {
	return &Handle{Base: base.New(st), c: c, container: st.Extra["container"], user: user}
}

// apiErr maps an Engine error onto the sentinels.
func (c *Context) apiErr(what string, err error) error {
	switch {
	case cerrdefs.IsNotFound(err):
		return contexts.Errorf(contexts.ErrNotFound, "%s: %v", what, err)
	case client.IsErrConnectionFailed(err), errors.Is(err, context.DeadlineExceeded):
		return contexts.Errorf(contexts.ErrUnavailable, "%s: the Docker daemon at %s does not answer: %v", what, c.cli.DaemonHost(), err).
			WithHint("start the Docker daemon, or point --docker-host / DOCKER_HOST at one")
	}
	return contexts.Errorf(contexts.ErrUnavailable, "%s: %v", what, err)
}

// Handle is one container.
type Handle struct {
	base.Base
	c         *Context
	container string
	user      string
}

// Destroy removes the container with everything in it; idempotent.
func (h *Handle) Destroy(ctx context.Context) error {
	h.MarkDestroyed()
	_, err := h.c.cli.ContainerRemove(ctx, h.container, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !cerrdefs.IsNotFound(err) {
		return h.c.apiErr("remove container", err)
	}
	return nil
}
