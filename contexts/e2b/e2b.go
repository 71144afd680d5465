// Package e2b is the E2B execution context: every handle is a remote E2B
// micro-VM (hosted, or self-hosted with E2B_DOMAIN), driven through the
// control plane's REST API and the sandbox's envd (Connect RPC with the
// JSON codec through connectrpc.com/connect, and HTTP /files). E2B has no
// official Go SDK (e2b-dev/E2B#985), so the wire types are plain structs
// (internal/wire) checked against the npm SDK's own descriptors, and the
// replica in e2btest is checked against that SDK run as an oracle.
//
// Lifecycle, as the seeds describe it: Spawn creates a sandbox from a
// template (E2B_TEMPLATE, default base) with a TTL, metadata and env, or
// connects to an existing one (Sandbox, which also resumes a paused one).
// Destroy kills (default), pauses or leaves a sandbox this provider
// created; one it attached to is never killed or paused unless
// OwnAttached. A sandbox that never answers (the invalid-template trap)
// fails the readiness deadline, and a sandbox created for it is killed.
package e2b

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/e2b/internal/wire"
	"github.com/zsandbox/zsandbox/contexts/internal/base"
	"github.com/zsandbox/zsandbox/contexts/internal/remote"
)

// Kind is the registry name.
const Kind = "e2b"

// Option names in contexts.Options.Extra (zctx's flags).
const (
	OptPregame   = remote.OptPregame
	OptSandbox   = remote.OptSandbox
	OptOnDestroy = remote.OptOnDestroy
)

// Defaults.
const (
	DefaultTemplate  = "base"
	DefaultTimeout   = 300 * time.Second // the SDK's sandbox TTL
	DefaultReadiness = 60 * time.Second
)

func init() {
	contexts.Register(Kind, contexts.Factory{
		New:     func(o contexts.Options) (contexts.Context, error) { return FromOptions(o) },
		Applies: remote.Applies,
	})
}

// Pregame is a setup script, uploaded to /tmp/<Name>.
type Pregame = remote.Pregame

// Options configures the provider. Empty fields take the environment's
// E2B_* variables, then the defaults.
type Options struct {
	APIKey     string // E2B_API_KEY; never printed
	Domain     string // E2B_DOMAIN, default e2b.app
	APIURL     string // E2B_API_URL, default https://api.<domain>
	SandboxURL string // E2B_SANDBOX_URL: envd of every sandbox (with routing headers)
	Template   string // E2B_TEMPLATE, default base
	Timeout    time.Duration
	Metadata   map[string]string
	Network    contexts.Network // deny (default) or allow: allow_internet_access
	SandboxID  string
	OnDestroy  string // kill (default), pause, leave
	// AutoPause is E2B's idle suspension: when Timeout runs out the
	// sandbox pauses (keeping its memory and files) instead of being
	// killed; the next connect (Attach, --sandbox) resumes it, and with
	// AutoResume any request to it does. E2B counts Timeout from create
	// or connect, not from the last command.
	AutoPause, AutoResume bool
	// OwnAttached applies OnDestroy to an attached sandbox too.
	OwnAttached bool
	Pregame     *Pregame
	// Clone, when set, is cloned into the sandbox after the cwd is made
	// (before the pregame), and the handle works in the clone.
	Clone *remote.Clone
	// PregameFile is read at Spawn (zctx's --pregame).
	PregameFile string
	// ReadinessTimeout bounds the wait for a new sandbox's envd; ≤ 0
	// disables the probe. 0 in FromOptions means the default.
	ReadinessTimeout time.Duration
	HTTPClient       *http.Client
}

// FromOptions reads the registry's Options (Extra holds zctx's flags).
func FromOptions(o contexts.Options) (*Context, error) {
	return New(Options{Network: o.Network, SandboxID: o.Extra[OptSandbox], OnDestroy: o.Extra[OptOnDestroy],
		PregameFile: o.Extra[OptPregame], Clone: remote.CloneOf(o.Extra), ReadinessTimeout: DefaultReadiness})
}

// Context is the e2b context.
type Context struct {
	opts Options
	api  *api
}

// sameHost follows a redirect only to the same host and scheme: Go's
// client drops Authorization past another host, not E2B's X-API-Key or
// envd's X-Access-Token, which would go along to wherever the redirect
// points (or in clear text, to http://).
func sameHost(req *http.Request, via []*http.Request) error {
	if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
		return fmt.Errorf("a redirect to %s://%s is not followed: it would carry the API key", req.URL.Scheme, req.URL.Host)
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

var sandboxID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`)

// New checks opts and fills in the defaults.
func New(opts Options) (*Context, error) {
	opts.APIKey = remote.FirstOf(opts.APIKey, os.Getenv("E2B_API_KEY"))
	opts.Domain = remote.FirstOf(opts.Domain, os.Getenv("E2B_DOMAIN"), "e2b.app")
	opts.APIURL = strings.TrimRight(remote.FirstOf(opts.APIURL, os.Getenv("E2B_API_URL"), "https://api."+opts.Domain), "/")
	opts.SandboxURL = strings.TrimRight(remote.FirstOf(opts.SandboxURL, os.Getenv("E2B_SANDBOX_URL")), "/")
	opts.Template = remote.FirstOf(opts.Template, os.Getenv("E2B_TEMPLATE"), DefaultTemplate)
	opts.OnDestroy = remote.FirstOf(opts.OnDestroy, "kill")
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	switch opts.OnDestroy {
	case "kill", "pause", "leave":
	default:
		return nil, contexts.Errorf(contexts.ErrUsage, "e2b: --sandbox-on-destroy %q: must be kill, pause or leave", opts.OnDestroy)
	}
	// The id goes into the API's URL path and envd's host name as it is:
	// "ID/pause?" would pause ID instead of attaching to it.
	if opts.SandboxID != "" && !sandboxID.MatchString(opts.SandboxID) {
		return nil, contexts.Errorf(contexts.ErrUsage, "e2b: --sandbox %q: not a sandbox id (letters, digits, - and _)", opts.SandboxID)
	}
	if opts.AutoResume && !opts.AutoPause {
		return nil, contexts.Errorf(contexts.ErrUsage, "e2b: AutoResume needs AutoPause (only a paused sandbox resumes)")
	}
	switch opts.Network {
	case "", contexts.NetworkDeny, contexts.NetworkAllow:
	default:
		return nil, contexts.Errorf(contexts.ErrUsage, "e2b: network %q: must be allow or deny", opts.Network)
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	if opts.HTTPClient.CheckRedirect == nil {
		hc := *opts.HTTPClient
		hc.CheckRedirect = sameHost
		opts.HTTPClient = &hc
	}
	return &Context{opts: opts, api: &api{base: opts.APIURL, key: opts.APIKey, http: opts.HTTPClient}}, nil
}

// Kind returns "e2b".
func (c *Context) Kind() string { return Kind }

// Capabilities: envd keeps stdout and stderr apart, takes stdin, runs
// background processes that outlive this program (re-attached by tag,
// with the output from then on) and terminals on its PTYs (not detached:
// see terminal.Detach).
func (c *Context) Capabilities() contexts.Capabilities {
	return contexts.Capabilities{Isolated: true, SeparateStderr: true, Stdin: true, Background: true,
		Reattach: true, Terminal: true, AttachAcross: true}
}

func (c *Context) needKey() error {
	if c.opts.APIKey == "" {
		return contexts.Errorf(contexts.ErrUnavailable, "e2b: no API key; nothing ran").WithHint("export E2B_API_KEY=e2b_…")
	}
	return nil
}

// envdFor is how to reach a sandbox's envd: E2B_SANDBOX_URL with the
// routing headers, else https://49983-<id>.<domain> (the create answer's
// domain wins over ours).
func (c *Context) envdFor(sb wire.Sandbox) *envd {
	base := c.opts.SandboxURL
	if base == "" {
		domain := c.opts.Domain
		if sb.Domain != nil && *sb.Domain != "" {
			domain = *sb.Domain
		}
		base = "https://" + wire.EnvdPort + "-" + sb.SandboxID + "." + domain
	}
	return &envd{base: base, sandboxID: sb.SandboxID, token: sb.EnvdAccessToken, http: c.opts.HTTPClient}
}

// Spawn creates a sandbox (or connects to Options.SandboxID), waits for
// its envd, makes the cwd and runs the pregame. A failure cleans up only
// a sandbox this call created.
func (c *Context) Spawn(ctx context.Context, cfg contexts.SpawnConfig) (contexts.Handle, error) {
	if err := c.needKey(); err != nil {
		return nil, err
	}
	pre, err := c.pregame()
	if err != nil {
		return nil, err
	}
	id, err := contexts.NewID("e")
	if err != nil {
		return nil, err
	}
	var sb wire.Sandbox
	created := c.opts.SandboxID == ""
	if created {
		sb, err = c.create(ctx, cfg)
	} else {
		sb, err = c.connect(ctx, c.opts.SandboxID)
	}
	if err != nil {
		return nil, err
	}
	st := contexts.State{Kind: Kind, ID: id, Cwd: cfg.Cwd, Env: cfg.Env, PassEnv: cfg.PassEnv,
		Extra: map[string]string{"sandbox": sb.SandboxID, "owned": strconv.FormatBool(created || c.opts.OwnAttached)}}
	h := c.newHandle(st, sb)
	err = remote.Setup{Kind: Kind, Created: created, Ready: func(ctx context.Context) error { return c.ready(ctx, h.envd) },
		Cwd: h.setCwd, Clone: c.opts.Clone, Pregame: pre, Exec: h.Exec, RunPregame: h.runPregame,
		Remove: func(ctx context.Context) { c.api.call(ctx, http.MethodDelete, "/sandboxes/"+sb.SandboxID, nil, nil) },
		Moved:  func(dir string) { h.St.Cwd = dir }, CurrentCwd: func() string { return h.St.Cwd }}.Run(ctx)
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (c *Context) pregame() (*Pregame, error) {
	return remote.LoadPregame(Kind, c.opts.Pregame, c.opts.PregameFile)
}

func (c *Context) create(ctx context.Context, cfg contexts.SpawnConfig) (wire.Sandbox, error) {
	env := map[string]string{}
	for _, kv := range contexts.WithPassed(cfg.Env, cfg.PassEnv) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	body := struct {
		wire.NewSandbox
		AllowInternet bool `json:"allow_internet_access"`
	}{wire.NewSandbox{TemplateID: c.opts.Template, Timeout: int(c.opts.Timeout / time.Second), Metadata: c.opts.Metadata,
		EnvVars: env, Secure: true, AutoPause: c.opts.AutoPause}, c.opts.Network == contexts.NetworkAllow}
	if c.opts.AutoResume {
		body.AutoResume = &wire.AutoResume{Enabled: true}
	}
	var sb wire.Sandbox
	if _, err := c.api.call(ctx, http.MethodPost, "/sandboxes", body, &sb); err != nil {
		return sb, err
	}
	if sb.SandboxID == "" {
		return sb, contexts.Errorf(contexts.ErrUnavailable, "e2b: create answered without a sandboxID")
	}
	return sb, nil
}

// connect attaches to (and resumes) sandbox id.
func (c *Context) connect(ctx context.Context, id string) (wire.Sandbox, error) {
	var sb wire.Sandbox
	_, err := c.api.call(ctx, http.MethodPost, "/sandboxes/"+id+"/connect", wire.Timeout{Timeout: int(c.opts.Timeout / time.Second)}, &sb)
	if errors.Is(err, contexts.ErrNotFound) {
		return sb, contexts.Errorf(contexts.ErrNotFound, "e2b: no sandbox %q (killed, or past its timeout)", id).
			WithHint("a sandbox kept with --sandbox-on-destroy pause can be resumed; a killed one is gone")
	}
	if sb.SandboxID == "" && err == nil {
		sb.SandboxID = id
	}
	return sb, err
}

// ready polls envd's /health until it answers or the readiness deadline
// passes: the invalid-template trap (an id, but a sandbox that never
// boots) becomes an error instead of a hang.
func (c *Context) ready(ctx context.Context, e *envd) error {
	if c.opts.ReadinessTimeout <= 0 {
		return nil
	}
	deadline, cancel := context.WithTimeout(ctx, c.opts.ReadinessTimeout)
	defer cancel()
	var last error
	for delay := 100 * time.Millisecond; ; delay = min(delay*2, 2*time.Second) {
		probe, stop := context.WithTimeout(deadline, 5*time.Second)
		last = e.healthy(probe)
		stop()
		if last == nil {
			return nil
		}
		select {
		case <-time.After(delay):
		case <-deadline.Done():
			if ctx.Err() != nil {
				return contexts.Errorf(contexts.ErrUnavailable, "e2b: waiting for sandbox %s: %v", e.sandboxID, ctx.Err())
			}
			return contexts.Errorf(contexts.ErrUnavailable,
				"e2b: sandbox %s (template %q) did not answer within %v; last: %v", e.sandboxID, c.opts.Template, c.opts.ReadinessTimeout, last).
				WithHint("an invalid template still returns a sandbox id but never boots: check E2B_TEMPLATE (self-hosted clusters have no base template)")
		}
	}
}

// Sandbox is one entry of List.
type Sandbox struct {
	ID, Template, State string // running or paused
	Metadata            map[string]string
	OnTimeout           string // kill or pause ("" when E2B does not say)
	AutoResume          bool
}

func sandboxOf(d wire.SandboxDetail) Sandbox {
	sb := Sandbox{ID: d.SandboxID, Template: d.TemplateID, State: d.State, Metadata: d.Metadata}
	if d.Lifecycle != nil {
		sb.OnTimeout, sb.AutoResume = d.Lifecycle.OnTimeout, d.Lifecycle.AutoResume
	}
	return sb
}

// Info is one sandbox (GET /sandboxes/{id}).
func (c *Context) Info(ctx context.Context, id string) (Sandbox, error) {
	if err := c.needKey(); err != nil {
		return Sandbox{}, err
	}
	var d wire.SandboxDetail
	_, err := c.api.call(ctx, http.MethodGet, "/sandboxes/"+id, nil, &d)
	return sandboxOf(d), err
}

// List lists the running and paused sandboxes whose metadata has every
// pair of match (GET /v2/sandboxes).
func (c *Context) List(ctx context.Context, match map[string]string) ([]Sandbox, error) {
	if err := c.needKey(); err != nil {
		return nil, err
	}
	q := url.Values{"state": {"running,paused"}}
	if len(match) > 0 {
		m := url.Values{}
		for k, v := range match {
			m.Set(k, v)
		}
		q.Set("metadata", m.Encode())
	}
	var list []wire.SandboxDetail
	if _, err := c.api.call(ctx, http.MethodGet, "/v2/sandboxes?"+q.Encode(), nil, &list); err != nil {
		return nil, err
	}
	out := make([]Sandbox, 0, len(list))
	for _, d := range list {
		out = append(out, sandboxOf(d))
	}
	return out, nil
}

// Attach reopens a handle in another program: connect again (which also
// resumes a paused sandbox and gives a fresh envd token).
func (c *Context) Attach(ctx context.Context, st contexts.State) (contexts.Handle, error) {
	if st.Kind != Kind {
		return nil, contexts.Errorf(contexts.ErrUsage, "handle of kind %q given to the e2b context", st.Kind)
	}
	if err := c.needKey(); err != nil {
		return nil, err
	}
	sb, err := c.connect(ctx, st.Extra["sandbox"])
	if err != nil {
		return nil, err
	}
	return c.newHandle(st, sb), nil
}

func (c *Context) newHandle(st contexts.State, sb wire.Sandbox) *Handle {
	return &Handle{Base: base.New(st), c: c, sandbox: sb.SandboxID, envd: c.envdFor(sb)}
}

// kept is implemented by handles whose Destroy kept the sandbox for a
// later run; zctx prints how to resume it.
var _ contexts.Kept = (*Handle)(nil)

func (h *Handle) setCwd(ctx context.Context) error {
	cmd := contexts.Cmd{Args: []string{"pwd"}}
	if h.St.Cwd != "" {
		cmd = contexts.Cmd{Args: []string{"mkdir", "-p", "--", h.St.Cwd}}
	}
	r, err := h.run(ctx, cmd, "")
	if err != nil {
		return err
	}
	if r.ExitCode != 0 {
		return contexts.Errorf(contexts.ErrUsage, "e2b: cwd %q: %s", h.St.Cwd, strings.TrimSpace(string(r.Stderr)))
	}
	if h.St.Cwd == "" {
		h.St.Cwd = strings.TrimSpace(string(r.Stdout))
	}
	return nil
}

// runPregame uploads the script to /tmp/<name> and runs it (its own
// shebang if it has one, else sh) with a 30-minute timeout, after
// extending the sandbox's TTL past that: the TTL, not the command's
// deadline, is what would end a long setup.
func (h *Handle) runPregame(ctx context.Context, pre *Pregame) error {
	ttl := int((remote.PregameTimeout + 5*time.Minute) / time.Second)
	if _, err := h.c.api.call(ctx, http.MethodPost, "/sandboxes/"+h.sandbox+"/timeout", wire.Timeout{Timeout: ttl}, nil); err != nil {
		return err
	}
	if err := h.envd.write(ctx, pre.Path(), pre.Content); err != nil {
		return err
	}
	r, err := h.run(ctx, contexts.Cmd{Args: pre.Argv(), Timeout: remote.PregameTimeout}, "")
	if err != nil {
		return err
	}
	if r.ExitCode != 0 {
		return remote.PregameFailed(Kind, pre, r.ExitCode, r.Stderr)
	}
	return nil
}

// Destroy ends this handle's background processes and applies OnDestroy
// to an owned sandbox: kill (DELETE), pause, or leave (no call). An
// attached sandbox is left alone unless OwnAttached.
func (h *Handle) Destroy(ctx context.Context) error {
	if h.MarkDestroyed() {
		return nil
	}
	owned := h.St.Extra["owned"] == "true"
	action := h.c.opts.OnDestroy
	if !owned || action != "kill" {
		remote.KillAll(ctx, &h.Procs)
		h.killTerminals()
	}
	if !owned {
		return nil
	}
	var err error
	switch action {
	case "kill":
		_, err = h.c.api.call(ctx, http.MethodDelete, "/sandboxes/"+h.sandbox, nil, nil)
		if errors.Is(err, contexts.ErrNotFound) {
			err = nil // already gone
		}
	case "pause":
		var status int
		status, err = h.c.api.call(ctx, http.MethodPost, "/sandboxes/"+h.sandbox+"/pause", struct{}{}, nil)
		if status == http.StatusConflict {
			err = nil // already paused
		}
		if err == nil {
			h.kept = h.sandbox
		}
	case "leave":
		h.kept = h.sandbox
	}
	return err
}

// Kept returns the id of the sandbox Destroy paused or left, or "".
func (h *Handle) Kept() string { return h.kept }

func (h *Handle) String() string { return fmt.Sprintf("e2b sandbox %s", h.sandbox) }
