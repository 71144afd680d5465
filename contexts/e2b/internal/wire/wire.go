// Package wire is E2B's wire format as plain Go structs: the control
// plane's REST bodies (spec/openapi.yml of e2b-dev/E2B) and envd's Connect
// messages (process.proto, filesystem.proto) in their protojson form —
// lowerCamelCase names, bytes as base64, int64 as strings, enums by name.
// JSONCodec lets connectrpc.com/connect carry them without a protobuf
// runtime or generated code, as the official SDKs do (Connect with the
// JSON codec). The provider and the replica share these types; the
// contract test checks them against the descriptors shipped in the npm
// e2b package, and the SDK oracle checks the replica from the other side.
package wire

import "encoding/json"

// EnvdPort is the port envd listens on inside every sandbox.
const EnvdPort = "49983"

// Headers that route an envd request and authorise it.
const (
	HeaderSandboxID   = "E2b-Sandbox-Id"
	HeaderSandboxPort = "E2b-Sandbox-Port"
	HeaderAccessToken = "X-Access-Token"
	HeaderAPIKey      = "X-API-Key"
)

// NewSandbox is the body of POST /sandboxes (and the SDK's /v2/sandboxes).
type NewSandbox struct {
	TemplateID string            `json:"templateID"`
	Timeout    int               `json:"timeout,omitempty"` // seconds
	Metadata   map[string]string `json:"metadata,omitempty"`
	EnvVars    map[string]string `json:"envVars,omitempty"`
	Secure     bool              `json:"secure,omitempty"`
	// AutoPause pauses the sandbox when its timeout runs out, instead of
	// killing it (the SDK's lifecycle.onTimeout "pause").
	AutoPause  bool        `json:"autoPause,omitempty"`
	AutoResume *AutoResume `json:"autoResume,omitempty"`
}

// AutoResume lets traffic to a paused sandbox resume it
// (SandboxAutoResumeConfig).
type AutoResume struct {
	Enabled bool `json:"enabled"`
}

// Lifecycle is what a sandbox does at its timeout (SandboxLifecycle).
type Lifecycle struct {
	AutoResume bool   `json:"autoResume"`
	OnTimeout  string `json:"onTimeout"` // kill, pause
}

// Sandbox is the answer to create and connect.
type Sandbox struct {
	SandboxID       string  `json:"sandboxID"`
	TemplateID      string  `json:"templateID"`
	ClientID        string  `json:"clientID"`
	EnvdVersion     string  `json:"envdVersion"`
	EnvdAccessToken string  `json:"envdAccessToken,omitempty"`
	Domain          *string `json:"domain"`
}

// SandboxDetail is GET /sandboxes/{id}; ListedSandbox one entry of GET
// /v2/sandboxes.
type SandboxDetail struct {
	SandboxID   string            `json:"sandboxID"`
	TemplateID  string            `json:"templateID"`
	ClientID    string            `json:"clientID"`
	StartedAt   string            `json:"startedAt"`
	EndAt       string            `json:"endAt"`
	State       string            `json:"state"` // running, paused
	EnvdVersion string            `json:"envdVersion"`
	CPUCount    int               `json:"cpuCount"`
	MemoryMB    int               `json:"memoryMB"`
	DiskSizeMB  int               `json:"diskSizeMB"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Lifecycle   *Lifecycle        `json:"lifecycle,omitempty"`
}

// Timeout is the body of connect and of POST /sandboxes/{id}/timeout.
type Timeout struct {
	Timeout int `json:"timeout"`
}

// APIError is the control plane's error body.
type APIError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// ProcessConfig is what envd runs: Cmd with Args, no shell of its own.
type ProcessConfig struct {
	Cmd  string            `json:"cmd"`
	Args []string          `json:"args,omitempty"`
	Envs map[string]string `json:"envs,omitempty"`
	Cwd  *string           `json:"cwd,omitempty"`
}

// StartRequest is process.Process/Start. Stdin omitted means true (envd
// ≥ 0.3.0), so the provider always says.
type StartRequest struct {
	Process ProcessConfig `json:"process"`
	Pty     *PTY          `json:"pty,omitempty"`
	Tag     *string       `json:"tag,omitempty"`
	Stdin   *bool         `json:"stdin,omitempty"`
}

// PTY asks envd to run the process on a pseudo-terminal of Size: its
// output then arrives as DataEvent.Pty, its input goes as ProcessInput.Pty.
type PTY struct {
	Size Size `json:"size"`
}

// Size is a terminal's size (PTY.Size).
type Size struct {
	Cols uint32 `json:"cols"`
	Rows uint32 `json:"rows"`
}

// UpdateRequest is process.Process/Update: a new terminal size.
type UpdateRequest struct {
	Process ProcessSelector `json:"process"`
	Pty     *PTY            `json:"pty,omitempty"`
}

// ProcessSelector names a process by pid or tag.
type ProcessSelector struct {
	Pid *uint32 `json:"pid,omitempty"`
	Tag *string `json:"tag,omitempty"`
}

// ConnectRequest is process.Process/Connect (re-attach).
type ConnectRequest struct {
	Process ProcessSelector `json:"process"`
}

// EventResponse is every message of the Start and Connect streams.
type EventResponse struct {
	Event ProcessEvent `json:"event"`
}

// ProcessEvent is a oneof: exactly one member is set.
type ProcessEvent struct {
	Start     *StartEvent `json:"start,omitempty"`
	Data      *DataEvent  `json:"data,omitempty"`
	End       *EndEvent   `json:"end,omitempty"`
	Keepalive *struct{}   `json:"keepalive,omitempty"`
}

// StartEvent says the process runs.
type StartEvent struct {
	Pid uint32 `json:"pid"`
}

// DataEvent is a chunk of output ([]byte is base64 in JSON, as protojson).
type DataEvent struct {
	Stdout []byte `json:"stdout,omitempty"`
	Stderr []byte `json:"stderr,omitempty"`
	Pty    []byte `json:"pty,omitempty"`
}

// EndEvent is how the process ended. envd reports a death by signal as
// exitCode -1 with status "signal: <name>".
type EndEvent struct {
	ExitCode int32   `json:"exitCode"`
	Exited   bool    `json:"exited"`
	Status   string  `json:"status"`
	Error    *string `json:"error,omitempty"`
}

// ListRequest, ListResponse: process.Process/List.
type ListRequest struct{}

type ListResponse struct {
	Processes []ProcessInfo `json:"processes"`
}

type ProcessInfo struct {
	Config ProcessConfig `json:"config"`
	Pid    uint32        `json:"pid"`
	Tag    *string       `json:"tag,omitempty"`
}

// SendInputRequest is process.Process/SendInput.
type SendInputRequest struct {
	Process ProcessSelector `json:"process"`
	Input   ProcessInput    `json:"input"`
}

type ProcessInput struct {
	Stdin []byte `json:"stdin,omitempty"`
	Pty   []byte `json:"pty,omitempty"`
}

// SendSignalRequest is process.Process/SendSignal; Signal is an enum name.
type SendSignalRequest struct {
	Process ProcessSelector `json:"process"`
	Signal  string          `json:"signal"`
}

// The signals envd's enum has.
const (
	SignalTerm = "SIGNAL_SIGTERM"
	SignalKill = "SIGNAL_SIGKILL"
)

// CloseStdinRequest is process.Process/CloseStdin (envd ≥ 0.5.2).
type CloseStdinRequest struct {
	Process ProcessSelector `json:"process"`
}

// Empty is the answer of SendInput, SendSignal, CloseStdin and Update.
type Empty struct{}

// ListDirRequest is filesystem.Filesystem/ListDir.
type ListDirRequest struct {
	Path  string `json:"path"`
	Depth uint32 `json:"depth,omitempty"`
}

type ListDirResponse struct {
	Entries []EntryInfo `json:"entries"`
}

// EntryInfo is one file; Size is int64, a string in protojson.
type EntryInfo struct {
	Name        string `json:"name"`
	Type        string `json:"type"` // FILE_TYPE_FILE, FILE_TYPE_DIRECTORY
	Path        string `json:"path"`
	Size        int64  `json:"size,string"`
	Mode        uint32 `json:"mode"`
	Permissions string `json:"permissions"`
	Owner       string `json:"owner"`
	Group       string `json:"group"`
}

// File types.
const (
	FileTypeFile = "FILE_TYPE_FILE"
	FileTypeDir  = "FILE_TYPE_DIRECTORY"
)

// WriteInfo is one entry of POST /files's answer.
type WriteInfo struct {
	Path string `json:"path"`
	Name string `json:"name"`
	Type string `json:"type"`
}

// The Connect procedures.
const (
	ProcStart      = "/process.Process/Start"
	ProcConnect    = "/process.Process/Connect"
	ProcList       = "/process.Process/List"
	ProcSendInput  = "/process.Process/SendInput"
	ProcSendSignal = "/process.Process/SendSignal"
	ProcCloseStdin = "/process.Process/CloseStdin"
	ProcUpdate     = "/process.Process/Update"
	FsListDir      = "/filesystem.Filesystem/ListDir"
)

// JSONCodec is Connect's "json" codec over plain structs.
type JSONCodec struct{}

func (JSONCodec) Name() string                    { return "json" }
func (JSONCodec) Marshal(v any) ([]byte, error)   { return json.Marshal(v) }
func (JSONCodec) Unmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
