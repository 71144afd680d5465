// Package daytona is the Daytona execution context: every handle is a
// Daytona sandbox, driven through Daytona's official generated Go clients
// (libs/api-client-go and libs/toolbox-api-client-go v0.190.0, the last
// the Go proxy serves): the REST API for the lifecycle, and the toolbox
// API behind the sandbox's toolboxProxyUrl for commands and files.
//
// The options and defaults are the seeds' provider reference: apiKey
// (DAYTONA_API_KEY), apiUrl (DAYTONA_API_URL), target (DAYTONA_TARGET),
// snapshot, image, resources, env (baked in and re-sent with every
// command), onDestroy (delete/kill default, stop/pause, archive, leave),
// ownAttached, pregame, readinessTimeoutSeconds (default 60, ≤ 0
// disables). A sandbox this provider did not create is never stopped,
// archived or deleted unless OwnAttached, and a failed spawn cleans up
// only what it created.
//
// Commands: the toolbox's execute call combines stdout and stderr and has
// no stdin and no kill, so every command runs as a session command under
// a small sh wrapper that takes stdin from an uploaded file, writes stdout
// and stderr to files of its own (downloaded byte-exact afterwards; the
// JSON logs could not carry binary output) and carries a mark by which a
// second call kills its whole tree (timeouts, signals, Destroy).
package daytona

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	apiclient "github.com/daytonaio/daytona/libs/api-client-go"
	toolbox "github.com/daytonaio/daytona/libs/toolbox-api-client-go"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/base"
	"github.com/zsandbox/zsandbox/contexts/internal/remote"
)

// Kind is the registry name.
const Kind = "daytona"

// Option names in contexts.Options.Extra (zctx's flags).
const (
	OptPregame   = remote.OptPregame
	OptSandbox   = remote.OptSandbox
	OptOnDestroy = remote.OptOnDestroy
)

// Defaults.
const (
	DefaultAPIURL    = "https://app.daytona.io/api"
	DefaultReadiness = 60               // seconds
	createTimeout    = 60 * time.Second // creating → started, as the SDK waits
)

func init() {
	contexts.Register(Kind, contexts.Factory{
		New:     func(o contexts.Options) (contexts.Context, error) { return FromOptions(o) },
		Applies: remote.Applies,
	})
}

// Resources are Daytona's sandbox resources (memory and disk in GB).
type Resources struct {
	CPU, Memory, Disk, GPU int32
}

// Pregame is a setup script, uploaded to /tmp/<Name>.
type Pregame = remote.Pregame

// Options are the seeds' DaytonaProviderOptions.
type Options struct {
	APIKey, APIURL, Target string
	Snapshot, Image        string
	Language               string
	Resources              Resources
	Env                    map[string]string
	Cwd                    string
	OnDestroy              string
	OwnAttached            bool
	Pregame                *Pregame
	PregameFile            string
	// Clone, when set, is cloned into the sandbox after the cwd is made
	// (before the pregame), and the handle works in the clone.
	Clone *remote.Clone
	// ReadinessTimeoutSeconds: nil means 60; ≤ 0 disables the probe.
	ReadinessTimeoutSeconds *int
	SandboxID               string
	Network                 contexts.Network // deny (default): networkBlockAll
	// Idle suspension, in minutes, as Daytona names it: a sandbox with no
	// toolbox call for AutoStopInterval stops (nil: Daytona's 15; 0:
	// never) and keeps its disk; stopped for AutoArchiveInterval it is
	// archived; AutoDeleteInterval deletes it (negative: never). Attach
	// and --sandbox start a stopped or archived sandbox again.
	AutoStopInterval, AutoArchiveInterval, AutoDeleteInterval *int32
	HTTPClient                                                *http.Client
}

// FromOptions reads the registry's Options; --sandbox-on-destroy kill and
// pause mean delete and stop, as the seeds say.
func FromOptions(o contexts.Options) (*Context, error) {
	return New(Options{Network: o.Network, SandboxID: o.Extra[OptSandbox], OnDestroy: o.Extra[OptOnDestroy], PregameFile: o.Extra[OptPregame], Clone: remote.CloneOf(o.Extra)})
}

// Context is the daytona context.
type Context struct {
	opts Options
	api  *apiclient.APIClient
}

// New checks opts and fills in the environment and the defaults.
func New(opts Options) (*Context, error) {
	opts.APIKey = remote.FirstOf(opts.APIKey, os.Getenv("DAYTONA_API_KEY"))
	opts.APIURL = strings.TrimRight(remote.FirstOf(opts.APIURL, os.Getenv("DAYTONA_API_URL"), DefaultAPIURL), "/")
	opts.Target = remote.FirstOf(opts.Target, os.Getenv("DAYTONA_TARGET"))
	opts.OnDestroy = remote.FirstOf(opts.OnDestroy, "delete")
	switch opts.OnDestroy {
	case "delete", "kill", "stop", "pause", "archive", "leave":
	default:
		return nil, contexts.Errorf(contexts.ErrUsage, "daytona: onDestroy %q: must be delete, kill, stop, pause, archive or leave", opts.OnDestroy)
	}
	switch opts.Network {
	case "":
		opts.Network = contexts.NetworkDeny
	case contexts.NetworkDeny, contexts.NetworkAllow:
	default:
		return nil, contexts.Errorf(contexts.ErrUsage, "daytona: network %q: must be allow or deny", opts.Network)
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	cfg := apiclient.NewConfiguration()
	cfg.Servers = apiclient.ServerConfigurations{{URL: opts.APIURL}}
	cfg.HTTPClient = opts.HTTPClient
	cfg.UserAgent = "zsandbox-contexts"
	cfg.AddDefaultHeader("Authorization", "Bearer "+opts.APIKey)
	cfg.AddDefaultHeader("X-Daytona-Source", "zsandbox-contexts")
	return &Context{opts: opts, api: apiclient.NewAPIClient(cfg)}, nil
}

// Kind returns "daytona".
func (c *Context) Kind() string { return Kind }

// Capabilities: stdout and stderr apart and stdin, through the wrapper;
// background processes belong to the program that started them; no
// terminal (see OpenTerminal).
func (c *Context) Capabilities() contexts.Capabilities {
	return contexts.Capabilities{Isolated: true, SeparateStderr: true, Stdin: true, Background: true, AttachAcross: true}
}

func (c *Context) needKey() error {
	if c.opts.APIKey == "" {
		return contexts.Errorf(contexts.ErrUnavailable, "daytona: no API key; nothing ran").WithHint("export DAYTONA_API_KEY=dtn_…")
	}
	return nil
}

// apiErr maps a generated client's error to a sentinel with a fix. The
// message has the status and the service's message, with the key
// redacted (a proxy's error page may echo the request's headers).
func (c *Context) apiErr(what string, res *http.Response, err error) error {
	if err == nil {
		return nil
	}
	status := 0
	if res != nil {
		status = res.StatusCode
	}
	msg := err.Error()
	var oe *apiclient.GenericOpenAPIError
	var te *toolbox.GenericOpenAPIError
	var body []byte
	if errors.As(err, &oe) {
		body = oe.Body()
	} else if errors.As(err, &te) {
		body = te.Body()
	}
	if b := strings.TrimSpace(remote.Redact(string(body), c.opts.APIKey)); b != "" {
		if len(b) > 300 {
			b = b[:300] + "…"
		}
		msg += ": " + b
	}
	full := "daytona: " + what + ": " + remote.Redact(msg, c.opts.APIKey)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return contexts.Errorf(contexts.ErrUnavailable, "%s", full).WithHint("set DAYTONA_API_KEY to a valid key (it is never printed)")
	case status == http.StatusNotFound:
		return contexts.Errorf(contexts.ErrNotFound, "%s", full)
	case status == http.StatusBadRequest:
		return contexts.Errorf(contexts.ErrUsage, "%s", full)
	case status == http.StatusTooManyRequests:
		return contexts.Errorf(contexts.ErrUnavailable, "%s", full).WithHint("Daytona's rate limit: wait, or run fewer sandboxes at once")
	}
	return contexts.Errorf(contexts.ErrUnavailable, "%s", full)
}

// Spawn creates a sandbox, or attaches to Options.SandboxID.
func (c *Context) Spawn(ctx context.Context, cfg contexts.SpawnConfig) (contexts.Handle, error) {
	return c.SpawnWith(ctx, cfg, nil)
}

// SpawnWith is Spawn with a per-spawn sandbox config (the seeds'
// SpawnConfig.sandbox), which wins over the provider's options.
func (c *Context) SpawnWith(ctx context.Context, cfg contexts.SpawnConfig, sandboxConfig map[string]any) (contexts.Handle, error) {
	if err := c.needKey(); err != nil {
		return nil, err
	}
	pre, err := c.pregame()
	if err != nil {
		return nil, err
	}
	id, err := contexts.NewID("dt")
	if err != nil {
		return nil, err
	}
	sb, created, err := c.acquire(ctx, cfg, sandboxConfig)
	if err != nil {
		return nil, err
	}
	owned := created || c.opts.OwnAttached
	st := contexts.State{Kind: Kind, ID: id, Cwd: remote.FirstOf(cfg.Cwd, c.opts.Cwd), Env: cfg.Env, PassEnv: cfg.PassEnv,
		Extra: map[string]string{"sandbox": sb.Id, "owned": strconv.FormatBool(owned)}}
	h := c.newHandle(st, sb)
	err = remote.Setup{Kind: Kind, Created: created, Ready: func(ctx context.Context) error { return h.waitReady(ctx, c.readiness()) },
		Cwd: h.setCwd, Clone: c.opts.Clone, Pregame: pre, Exec: h.Exec, RunPregame: h.runPregame,
		Remove: func(ctx context.Context) { c.api.SandboxAPI.DeleteSandbox(ctx, sb.Id).Execute() }, // never one that was there before
		Moved:  func(dir string) { h.St.Cwd = dir }, CurrentCwd: func() string { return h.St.Cwd }}.Run(ctx)
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (c *Context) readiness() time.Duration {
	s := DefaultReadiness
	if c.opts.ReadinessTimeoutSeconds != nil {
		s = *c.opts.ReadinessTimeoutSeconds
	}
	return time.Duration(s) * time.Second
}

func (c *Context) pregame() (*Pregame, error) {
	return remote.LoadPregame(Kind, c.opts.Pregame, c.opts.PregameFile)
}

// acquire attaches to Options.SandboxID (starting it if stopped or
// archived; one from another snapshot is deleted and recreated, but only
// when OwnAttached lets this provider delete it) or creates a sandbox,
// and waits until it is started.
func (c *Context) acquire(ctx context.Context, cfg contexts.SpawnConfig, sandboxConfig map[string]any) (*apiclient.Sandbox, bool, error) {
	if id := c.opts.SandboxID; id != "" {
		sb, res, err := c.api.SandboxAPI.GetSandbox(ctx, id).Execute()
		if err != nil {
			err = c.apiErr("get sandbox "+id, res, err)
			if errors.Is(err, contexts.ErrNotFound) {
				return nil, false, contexts.Errorf(contexts.ErrNotFound, "daytona: no sandbox %q", id).WithHint("a sandbox kept with --sandbox-on-destroy pause (stop) can be attached to; a deleted one is gone")
			}
			return nil, false, err
		}
		if c.opts.Snapshot != "" && sb.GetSnapshot() != c.opts.Snapshot {
			if !c.opts.OwnAttached {
				return nil, false, contexts.Errorf(contexts.ErrUsage, "daytona: sandbox %s was built from snapshot %q, not %q", id, sb.GetSnapshot(), c.opts.Snapshot).
					WithHint("set ownAttached to let the provider delete it and create one from " + c.opts.Snapshot)
			}
			if _, res, err := c.api.SandboxAPI.DeleteSandbox(ctx, id).Execute(); err != nil {
				return nil, false, c.apiErr("delete sandbox "+id, res, err)
			}
			return c.create(ctx, cfg, sandboxConfig)
		}
		sb, err = c.resume(ctx, sb)
		return sb, false, err
	}
	return c.create(ctx, cfg, sandboxConfig)
}

// resume starts a sandbox that was stopped or archived (by onDestroy or
// by Daytona's idle rules) and waits until it is started.
func (c *Context) resume(ctx context.Context, sb *apiclient.Sandbox) (*apiclient.Sandbox, error) {
	switch sb.GetState() {
	case apiclient.SANDBOXSTATE_STARTED:
		return sb, nil
	case apiclient.SANDBOXSTATE_STOPPED, apiclient.SANDBOXSTATE_ARCHIVED:
		if _, res, err := c.api.SandboxAPI.StartSandbox(ctx, sb.Id).Execute(); err != nil {
			return nil, c.apiErr("start sandbox "+sb.Id, res, err)
		}
	}
	return c.waitStarted(ctx, sb.Id)
}

func (c *Context) create(ctx context.Context, cfg contexts.SpawnConfig, sandboxConfig map[string]any) (*apiclient.Sandbox, bool, error) {
	env := map[string]string{}
	for _, kv := range contexts.WithPassed(cfg.Env, cfg.PassEnv) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	params, err := ResolveCreateParams(sandboxConfig, c.opts, env)
	if err != nil {
		return nil, false, err
	}
	if params == nil {
		params = apiclient.NewCreateSandbox()
	}
	sb, res, err := c.api.SandboxAPI.CreateSandbox(ctx).CreateSandbox(*params).Execute()
	if err != nil {
		return nil, false, c.apiErr("create sandbox", res, err)
	}
	started, err := c.waitStarted(ctx, sb.Id)
	if err != nil {
		c.api.SandboxAPI.DeleteSandbox(context.WithoutCancel(ctx), sb.Id).Execute()
		return nil, false, err
	}
	return started, true, nil
}

// waitStarted polls the sandbox until it is started (100 ms, backing
// off to 1 s, as the SDK does), and fails on error or build_failed.
func (c *Context) waitStarted(ctx context.Context, id string) (*apiclient.Sandbox, error) {
	deadline, cancel := context.WithTimeout(ctx, createTimeout)
	defer cancel()
	for delay := 100 * time.Millisecond; ; delay = min(delay*2, time.Second) {
		sb, res, err := c.api.SandboxAPI.GetSandbox(deadline, id).Execute()
		if err != nil {
			return nil, c.apiErr("get sandbox "+id, res, err)
		}
		switch sb.GetState() {
		case apiclient.SANDBOXSTATE_STARTED:
			return sb, nil
		case apiclient.SANDBOXSTATE_ERROR, apiclient.SANDBOXSTATE_BUILD_FAILED:
			return nil, contexts.Errorf(contexts.ErrUnavailable, "daytona: sandbox %s is %s: %s", id, sb.GetState(), sb.GetErrorReason())
		}
		select {
		case <-time.After(delay):
		case <-deadline.Done():
			return nil, contexts.Errorf(contexts.ErrUnavailable, "daytona: sandbox %s still %s after %v", id, sb.GetState(), createTimeout)
		}
	}
}

// Sandbox is one entry of List.
type Sandbox struct {
	ID, Name, State, Snapshot string
	Labels                    map[string]string
	// The idle rules, in minutes (see Options.AutoStopInterval).
	AutoStop, AutoArchive, AutoDelete int32
}

// List lists the sandboxes whose labels have every pair of match.
func (c *Context) List(ctx context.Context, match map[string]string) ([]Sandbox, error) {
	if err := c.needKey(); err != nil {
		return nil, err
	}
	req := c.api.SandboxAPI.ListSandboxes(ctx)
	if len(match) > 0 {
		b, _ := json.Marshal(match)
		req = req.Labels(string(b))
	}
	list, res, err := req.Execute()
	if err != nil {
		return nil, c.apiErr("list sandboxes", res, err)
	}
	out := make([]Sandbox, 0, len(list.Items))
	for _, it := range list.Items {
		out = append(out, Sandbox{ID: it.Id, Name: it.Name, State: string(it.GetState()), Snapshot: it.GetSnapshot(), Labels: it.Labels,
			AutoStop: int32(it.GetAutoStopInterval()), AutoArchive: int32(it.GetAutoArchiveInterval()), AutoDelete: int32(it.GetAutoDeleteInterval())})
	}
	return out, nil
}

// Attach reopens a handle in another program.
func (c *Context) Attach(ctx context.Context, st contexts.State) (contexts.Handle, error) {
	if st.Kind != Kind {
		return nil, contexts.Errorf(contexts.ErrUsage, "handle of kind %q given to the daytona context", st.Kind)
	}
	if err := c.needKey(); err != nil {
		return nil, err
	}
	id := st.Extra["sandbox"]
	sb, res, err := c.api.SandboxAPI.GetSandbox(ctx, id).Execute()
	if err != nil {
		return nil, c.apiErr("get sandbox "+id, res, err)
	}
	// Suspended while idle: the next command resumes it, as the seeds'
	// apps do with the next message.
	if sb, err = c.resume(ctx, sb); err != nil {
		return nil, err
	}
	return c.newHandle(st, sb), nil
}

func (c *Context) newHandle(st contexts.State, sb *apiclient.Sandbox) *Handle {
	cfg := toolbox.NewConfiguration()
	cfg.Servers = toolbox.ServerConfigurations{{URL: strings.TrimRight(sb.ToolboxProxyUrl, "/") + "/" + sb.Id}}
	cfg.HTTPClient = c.opts.HTTPClient
	cfg.UserAgent = "zsandbox-contexts"
	cfg.AddDefaultHeader("Authorization", "Bearer "+c.opts.APIKey)
	cfg.AddDefaultHeader("X-Daytona-Source", "zsandbox-contexts")
	return &Handle{Base: base.New(st), c: c, sandbox: sb.Id, tb: toolbox.NewAPIClient(cfg)}
}

// execute is the toolbox's plain execute call, normalised.
func (h *Handle) execute(ctx context.Context, command string, timeout time.Duration) (contexts.Result, error) {
	req := toolbox.NewExecuteRequest(command)
	if timeout > 0 {
		req.SetTimeout(int32(timeout / time.Second))
	}
	out, res, err := h.tb.ProcessAPI.ExecuteCommand(ctx).Request(*req).Execute()
	if res != nil && res.StatusCode == http.StatusRequestTimeout {
		return contexts.Result{ExitCode: contexts.ExitTimeout, TimedOut: true}, nil
	}
	if err != nil {
		return contexts.Result{}, h.c.apiErr("execute in sandbox "+h.sandbox, res, err)
	}
	var code *int
	if out.ExitCode != nil {
		c := int(*out.ExitCode)
		code = &c
	}
	return NormalizeExecResult(ExecuteResponse{ExitCode: code, Result: &out.Result}), nil
}

// waitReady probes the toolbox with a trivial command until it answers
// (it lags behind started); ≤ 0 disables the probe.
func (h *Handle) waitReady(ctx context.Context, total time.Duration) error {
	if total <= 0 {
		return nil
	}
	deadline, cancel := context.WithTimeout(ctx, total)
	defer cancel()
	var last error
	for delay := 100 * time.Millisecond; ; delay = min(delay*2, 2*time.Second) {
		probe, stop := context.WithTimeout(deadline, 10*time.Second)
		r, err := h.execute(probe, "true", 5*time.Second)
		stop()
		if err == nil && r.ExitCode == 0 {
			return nil
		}
		last = err
		if last == nil {
			last = fmt.Errorf("probe exited %d", r.ExitCode)
		}
		select {
		case <-time.After(delay):
		case <-deadline.Done():
			return contexts.Errorf(contexts.ErrUnavailable, "daytona: sandbox %s did not run commands within %v (readinessTimeoutSeconds); last: %v", h.sandbox, total, last).
				WithHint("raise readinessTimeoutSeconds, or check the sandbox in Daytona's dashboard")
		}
	}
}

func (h *Handle) setCwd(ctx context.Context) error {
	if h.St.Cwd != "" {
		r, err := h.execute(ctx, "mkdir -p -- "+quote(h.St.Cwd), time.Minute)
		if err == nil && r.ExitCode != 0 {
			err = contexts.Errorf(contexts.ErrUsage, "daytona: cwd %q: %s", h.St.Cwd, remote.Tail(r.Stdout))
		}
		return err
	}
	r, err := h.execute(ctx, "pwd", time.Minute)
	if err != nil {
		return err
	}
	h.St.Cwd = strings.TrimSpace(string(r.Stdout))
	return nil
}

// runPregame uploads the script to /tmp/<name> and runs it with the
// execute call's 30-minute timeout; a non-zero exit fails the spawn.
func (h *Handle) runPregame(ctx context.Context, pre *Pregame) error {
	if err := h.upload(ctx, pre.Path(), pre.Content); err != nil {
		return err
	}
	env := []string{"env"}
	for k, v := range h.c.opts.Env {
		env = append(env, k+"="+v)
	}
	r, err := h.execute(ctx, "cd "+quote(h.St.Cwd)+" && "+words(append(env, pre.Argv()...)), remote.PregameTimeout)
	if err != nil {
		return err
	}
	if r.ExitCode != 0 {
		return remote.PregameFailed(Kind, pre, r.ExitCode, r.Stdout)
	}
	return nil
}

// quote makes s one sh word.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Destroy kills this handle's background processes and applies onDestroy
// to an owned sandbox: delete/kill, stop/pause, archive (stop first), or
// leave. An attached sandbox is left running unless OwnAttached.
func (h *Handle) Destroy(ctx context.Context) error {
	if h.MarkDestroyed() {
		return nil
	}
	remote.KillAll(ctx, &h.Procs)
	if h.St.Extra["owned"] != "true" {
		return nil
	}
	id := h.sandbox
	var err error
	var res *http.Response
	switch h.c.opts.OnDestroy {
	case "delete", "kill":
		_, res, err = h.c.api.SandboxAPI.DeleteSandbox(ctx, id).Execute()
		if res != nil && res.StatusCode == http.StatusNotFound {
			err = nil
		}
	case "stop", "pause":
		_, res, err = h.c.api.SandboxAPI.StopSandbox(ctx, id).Execute()
	case "archive":
		if _, res, err = h.c.api.SandboxAPI.StopSandbox(ctx, id).Execute(); err == nil {
			_, res, err = h.c.api.SandboxAPI.ArchiveSandbox(ctx, id).Execute()
		}
	}
	if err != nil {
		return h.c.apiErr(h.c.opts.OnDestroy+" sandbox "+id, res, err)
	}
	if h.c.opts.OnDestroy != "delete" && h.c.opts.OnDestroy != "kill" {
		h.kept = id
	}
	return nil
}

// Kept returns the id of the sandbox Destroy kept, or "".
func (h *Handle) Kept() string { return h.kept }

var _ contexts.Kept = (*Handle)(nil)
