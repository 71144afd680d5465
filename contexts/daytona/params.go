package daytona

import (
	"encoding/json"
	"maps"

	apiclient "github.com/daytonaio/daytona/libs/api-client-go"

	"github.com/zsandbox/zsandbox/contexts"
)

// ExecuteResponse is what a Daytona execute call can answer: the
// toolbox's {exitCode, result}, or the SDK's shape with artifacts.
type ExecuteResponse struct {
	ExitCode  *int    `json:"exitCode,omitempty"`
	Result    *string `json:"result,omitempty"`
	Artifacts *struct {
		Stdout *string `json:"stdout,omitempty"`
	} `json:"artifacts,omitempty"`
}

// NormalizeExecResult is the seeds' normalizeDaytonaExecResult: stdout is
// result, else artifacts.stdout, else empty; the exit code defaults to 0.
// Daytona's execute combines stderr into result, so Stderr stays empty.
func NormalizeExecResult(r ExecuteResponse) contexts.Result {
	out := contexts.Result{}
	switch {
	case r.Result != nil:
		out.Stdout = []byte(*r.Result)
	case r.Artifacts != nil && r.Artifacts.Stdout != nil:
		out.Stdout = []byte(*r.Artifacts.Stdout)
	}
	if r.ExitCode != nil {
		out.ExitCode = *r.ExitCode
	}
	return out
}

// ResolveEnv is the seeds' resolveDaytonaEnv: the provider's env, then the
// spawn's on top; nil when empty.
func ResolveEnv(optionEnv, perSpawn map[string]string) map[string]string {
	out := maps.Clone(optionEnv)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, perSpawn)
	if len(out) == 0 {
		return nil
	}
	return out
}

// connectionKeys configure the provider, never the sandbox: a per-spawn
// config that names them does not reach the create call.
var connectionKeys = []string{"apiKey", "apiUrl", "sandboxId", "ownAttached", "onDestroy", "pregame",
	"readinessTimeoutSeconds", "logger", "cwd"}

// ResolveCreateParams is the seeds' resolveDaytonaCreateParams: the
// provider options give the defaults, per-spawn sandboxConfig values win,
// connection keys are dropped and the environments merge. It returns nil
// when nothing is set (Daytona then picks its defaults).
func ResolveCreateParams(sandboxConfig map[string]any, opts Options, envVars map[string]string) (*apiclient.CreateSandbox, error) {
	m := map[string]any{}
	set := func(k string, v any, ok bool) {
		if ok {
			m[k] = v
		}
	}
	set("snapshot", opts.Snapshot, opts.Snapshot != "")
	set("target", opts.Target, opts.Target != "")
	if opts.Image != "" {
		m["buildInfo"] = map[string]any{"dockerfileContent": "FROM " + opts.Image + "\n"}
	}
	r := opts.Resources
	set("cpu", r.CPU, r.CPU > 0)
	set("memory", r.Memory, r.Memory > 0)
	set("disk", r.Disk, r.Disk > 0)
	set("gpu", r.GPU, r.GPU > 0)
	if opts.Language != "" {
		m["labels"] = map[string]string{"code-toolbox-language": opts.Language}
	}
	if opts.Network == contexts.NetworkDeny {
		m["networkBlockAll"] = true
	}
	for k, v := range map[string]*int32{"autoStopInterval": opts.AutoStopInterval, "autoArchiveInterval": opts.AutoArchiveInterval,
		"autoDeleteInterval": opts.AutoDeleteInterval} {
		set(k, v, v != nil)
	}
	for k, v := range sandboxConfig {
		m[k] = v
	}
	for _, k := range connectionKeys {
		delete(m, k)
	}
	var spawnEnv map[string]string
	if e, ok := m["env"]; ok {
		b, _ := json.Marshal(e)
		if err := json.Unmarshal(b, &spawnEnv); err != nil {
			return nil, contexts.Errorf(contexts.ErrUsage, "daytona: sandbox config env: want an object of strings")
		}
		delete(m, "env")
	}
	if env := ResolveEnv(ResolveEnv(opts.Env, envVars), spawnEnv); env != nil {
		m["env"] = env
	}
	if len(m) == 0 {
		return nil, nil
	}
	b, _ := json.Marshal(m)
	var out apiclient.CreateSandbox
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, contexts.Errorf(contexts.ErrUsage, "daytona: sandbox config: %v", err)
	}
	return &out, nil
}
