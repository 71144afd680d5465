// Package contexts is one interface for where an agent's commands and file
// operations run: an execution context spawns a Handle, and every shell call
// (Exec, Start, OpenTerminal) and file call (ReadFile, WriteFile, ListFiles)
// goes through it until Destroy. The contexts differ in where the work runs
// and how it is isolated: process (host child processes, under zsandbox by
// default), docker (a hardened container on the local daemon), apple
// (Apple's container CLI) and local (apple, else docker, else refuse).
//
// Exit codes follow the shell: 124 means the command ran out of time, 128+N
// that it died of signal N, 127 that it could not run (for a context, that
// it could not be isolated; nothing ran). Errors can be told apart with
// errors.Is against the sentinels in errors.go. What a context cannot do is
// reported by Capabilities and by ErrUnsupported, never faked.
package contexts

import (
	"context"
	"io"
	"io/fs"
	"syscall"
	"time"
)

// Exit codes with a fixed meaning.
const (
	ExitTimeout   = 124 // the command ran past Cmd.Timeout and was killed
	ExitCannotRun = 127 // the context could not run it (see ErrUnavailable)
	exitSignal    = 128 // 128+N: the command died of signal N
)

// SignalExit returns the exit code of a command killed by sig.
func SignalExit(sig syscall.Signal) int { return exitSignal + int(sig) }

// Context makes handles. Options are given to the context's constructor;
// SpawnConfig holds what varies per handle.
type Context interface {
	// Kind is the registry name: "process", "docker", "apple", "local".
	Kind() string
	Capabilities() Capabilities
	Spawn(ctx context.Context, cfg SpawnConfig) (Handle, error)
	// Attach reopens a handle from its State, e.g. in another zctx
	// process. A handle that was destroyed gives ErrDestroyed, one whose
	// container is gone ErrNotFound.
	Attach(ctx context.Context, st State) (Handle, error)
}

// SpawnConfig is what a handle starts with. Env and PassEnv apply to every
// command of the handle; a Cmd can add to them.
type SpawnConfig struct {
	Cwd     string   // "" means the context's default
	Env     []string // KEY=VALUE
	PassEnv []string // names of host variables to pass through
}

// State is what it takes to reopen a handle (JSON-safe, no secrets).
type State struct {
	Kind    string            `json:"kind"`
	ID      string            `json:"id"`
	Cwd     string            `json:"cwd"`
	Env     []string          `json:"env,omitempty"`
	PassEnv []string          `json:"passEnv,omitempty"`
	Extra   map[string]string `json:"extra,omitempty"` // the context's own fields
}

// Handle is one spawned environment.
type Handle interface {
	ID() string
	State() State
	// Exec runs cmd to the end and returns its output and exit code. A
	// non-zero exit is not an error; an error means the context failed.
	Exec(ctx context.Context, cmd Cmd) (Result, error)
	// Start runs cmd in the background; read its output as it runs.
	Start(ctx context.Context, cmd Cmd) (Process, error)
	// Processes lists the background processes started on this handle.
	Processes(ctx context.Context) ([]ProcessInfo, error)
	// AttachProcess re-attaches to a background process by its ID: its
	// output is replayed from the start, then followed.
	AttachProcess(ctx context.Context, id string) (Process, error)
	OpenTerminal(ctx context.Context, cfg TerminalConfig) (Terminal, error)
	// ReadFile, WriteFile and ListFiles take paths relative to the
	// handle's cwd, or absolute.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	WriteFile(ctx context.Context, path string, data []byte, perm fs.FileMode) error
	ListFiles(ctx context.Context, dir string) ([]FileInfo, error)
	// Destroy ends every process and removes what Spawn made. It is
	// idempotent: a second call returns nil.
	Destroy(ctx context.Context) error
}

// Kept is a Handle whose Destroy can keep its remote sandbox for a later
// run (e2b's and daytona's pause or leave): Kept returns the id to attach
// to again, or "" when nothing was kept.
type Kept interface {
	Kept() string
}

// Cmd is one command: Args (run as is) or Shell (run by sh -c), not both.
type Cmd struct {
	Args    []string
	Shell   string
	Cwd     string    // "" means the handle's cwd
	Env     []string  // KEY=VALUE, added to the handle's
	PassEnv []string  // added to the handle's
	Stdin   io.Reader // nil means empty (EOF at once)
	// Timeout kills the command and everything it started; Exec then
	// reports ExitTimeout. 0 means none.
	Timeout time.Duration
	// Stdout and Stderr, when set, receive Exec's output as it is
	// written (Result then holds it too).
	Stdout, Stderr io.Writer
}

// Result is how a command ended.
type Result struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
	TimedOut bool
}

// Process is a command running in the background.
type Process interface {
	ID() string
	// Stdout and Stderr read the output from the start, blocking until
	// more is written; io.EOF once the process has ended.
	Stdout() io.Reader
	Stderr() io.Reader
	Signal(ctx context.Context, sig syscall.Signal) error
	// Wait blocks until the process ends; Result's output is everything
	// it wrote.
	Wait(ctx context.Context) (Result, error)
}

// ProcessInfo describes a background process.
type ProcessInfo struct {
	ID       string   `json:"id"`
	Args     []string `json:"args"`
	Running  bool     `json:"running"`
	ExitCode int      `json:"exitCode"`
}

// TerminalConfig opens an interactive shell (Args "" means a login shell).
type TerminalConfig struct {
	Cols, Rows uint16
	Cwd        string
	Env        []string
	Args       []string
}

// Terminal is an interactive process on a pseudo-terminal: reading gives
// what it prints, writing types into it.
type Terminal interface {
	io.ReadWriter
	Resize(cols, rows uint16) error
	// Kill ends the shell; Detach lets go of it and leaves it running
	// (ErrUnsupported where the context cannot).
	Kill() error
	Detach() error
	// Wait returns the shell's exit code.
	Wait(ctx context.Context) (int, error)
}

// FileInfo is one entry of ListFiles.
type FileInfo struct {
	Name  string      `json:"name"`
	Size  int64       `json:"size"`
	Mode  fs.FileMode `json:"mode"`
	IsDir bool        `json:"isDir"`
}

// Capabilities says what a context really does.
type Capabilities struct {
	// Isolated: commands run fenced off from the host's files, network
	// and processes (false for the process context with isolation off).
	Isolated bool `json:"isolated"`
	// SeparateStderr: stdout and stderr arrive apart.
	SeparateStderr bool `json:"separateStderr"`
	Stdin          bool `json:"stdin"`
	Background     bool `json:"background"`
	// Reattach: a background process can be re-attached by another host
	// process (not only by the one that started it).
	Reattach bool `json:"reattach"`
	Terminal bool `json:"terminal"`
	// Detach: a terminal can be let go of and left running.
	Detach bool `json:"detach"`
	// AttachAcross: a handle can be reopened from its State in another
	// host process.
	AttachAcross bool `json:"attachAcross"`
}
