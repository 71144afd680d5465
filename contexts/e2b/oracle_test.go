//go:build linux

package e2b

import (
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/conformance"
	"github.com/zsandbox/zsandbox/contexts/e2b/e2btest"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

// outcome is one scenario's result, as testdata/oracle/e2b.mjs prints it.
type outcome struct {
	ExitCode     int     `json:"exitCode"`
	Stdout       string  `json:"stdout"`
	Stderr       *string `json:"stderr,omitempty"`
	StderrLength int     `json:"stderrLength,omitempty"`
}

type outcomes struct {
	Exit       outcome  `json:"exit"`
	Env        outcome  `json:"env"`
	Pwd        outcome  `json:"pwd"`
	Cwd        outcome  `json:"cwd"`
	Big        outcome  `json:"big"`
	Read       string   `json:"read"`
	List       []string `json:"list"`
	Background outcome  `json:"background"`
	Killed     struct {
		ExitCode int `json:"exitCode"`
	} `json:"killed"`
	Pty struct {
		Sizes    []string `json:"sizes"`
		ExitCode int      `json:"exitCode"`
	} `json:"pty"`
	PtyKilled struct {
		Killed   bool `json:"killed"`
		ExitCode int  `json:"exitCode"`
	} `json:"ptyKilled"`
	Missing   string   `json:"missing"`
	Listed    []string `json:"listed"`
	Paused    string   `json:"paused"`
	Resumed   string   `json:"resumed"`
	Lifecycle struct {
		OnTimeout  string `json:"onTimeout"`
		AutoResume bool   `json:"autoResume"`
	} `json:"lifecycle"`
}

func str(s string) *string { return &s }

// expected is what the scenarios must give, whoever runs them.
func expected() outcomes {
	var o outcomes
	o.Exit = outcome{ExitCode: 3, Stdout: "out\n", Stderr: str("err\n")}
	o.Env = outcome{Stdout: "c1-p1", Stderr: str("")}
	o.Pwd = outcome{Stdout: e2btest.Home + "\n", Stderr: str("")}
	o.Cwd = outcome{Stdout: e2btest.Home + "/sub\n", Stderr: str("")}
	o.Big = outcome{Stdout: "300000\n", StderrLength: 200000}
	o.Read = "hello\n"
	o.List = []string{"a b.txt:file", "second:file"}
	o.Background = outcome{Stdout: "bg-start\nbg-end\n", Stderr: str("")}
	o.Killed.ExitCode = contexts.SignalExit(syscall.SIGKILL)
	o.Missing = "FileNotFoundError"
	o.Pty.Sizes, o.Pty.ExitCode = []string{"30 100", "40 120"}, 3
	o.PtyKilled.Killed, o.PtyKilled.ExitCode = true, contexts.SignalExit(syscall.SIGKILL)
	o.Listed = []string{"self:running"}
	o.Paused = "paused"
	o.Resumed = "state"
	o.Lifecycle.OnTimeout, o.Lifecycle.AutoResume = "pause", true
	return o
}

func needOracle(t *testing.T) { remotetest.NeedOracle(t, "e2b") }

const oracleDir = remotetest.OracleDir

func result(r contexts.Result) outcome {
	return outcome{ExitCode: r.ExitCode, Stdout: string(r.Stdout), Stderr: str(string(r.Stderr))}
}

// goSide runs the same scenarios with this package's provider.
func goSide(t *testing.T, s *e2btest.Server) outcomes {
	c := provider(t, s, Options{Metadata: map[string]string{"suite": "oracle"}})
	h := spawnT(t, c, contexts.SpawnConfig{Env: []string{"FROM_CREATE=c1"}})
	defer h.Destroy(ctxT(t))
	var o outcomes
	o.Exit = result(execT(t, h, "echo out; echo err >&2; exit 3"))
	r, _ := h.Exec(ctxT(t), contexts.Cmd{Shell: `printf %s "$FROM_CREATE"; printf %s "$PER_CMD"`, Env: []string{"PER_CMD=-p1"}})
	o.Env = result(r)
	o.Pwd = result(execT(t, h, "pwd"))
	o.Cwd = result(execT(t, h, "mkdir -p sub && cd sub && pwd"))
	big := execT(t, h, `head -c 300000 /dev/zero | tr "\0" x | wc -c; head -c 200000 /dev/zero | tr "\0" y >&2`)
	o.Big = outcome{ExitCode: big.ExitCode, Stdout: string(big.Stdout), StderrLength: len(big.Stderr)}
	h.WriteFile(ctxT(t), e2btest.Home+"/dir/a b.txt", []byte("hello\n"), 0o644)
	h.WriteFile(ctxT(t), e2btest.Home+"/dir/second", []byte("two"), 0o644)
	b, _ := h.ReadFile(ctxT(t), e2btest.Home+"/dir/a b.txt")
	o.Read = string(b)
	list, _ := h.ListFiles(ctxT(t), e2btest.Home+"/dir")
	for _, f := range list {
		kind := "file"
		if f.IsDir {
			kind = "dir"
		}
		o.List = append(o.List, f.Name+":"+kind)
	}
	slices.Sort(o.List)
	bg, err := h.Start(ctxT(t), contexts.Cmd{Shell: "echo bg-start; sleep 0.3; echo bg-end"})
	if err != nil {
		t.Fatal(err)
	}
	br, _ := bg.Wait(ctxT(t))
	o.Background = result(br)
	long, err := h.Start(ctxT(t), contexts.Cmd{Shell: "echo up; while :; do sleep 0.1; done"})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	long.Stdout().Read(buf)
	long.Signal(ctxT(t), syscall.SIGKILL)
	kr, _ := long.Wait(ctxT(t))
	o.Killed.ExitCode = kr.ExitCode
	if _, err := h.ReadFile(ctxT(t), e2btest.Home+"/nope"); errors.Is(err, contexts.ErrNotFound) {
		o.Missing = "FileNotFoundError"
	}
	o.Pty.Sizes, o.Pty.ExitCode = goTerminal(t, h)
	t2, err := h.OpenTerminal(ctxT(t), contexts.TerminalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	o.PtyKilled.Killed = t2.Kill() == nil
	o.PtyKilled.ExitCode, _ = t2.Wait(ctxT(t))
	listed, err := c.List(ctxT(t), map[string]string{"suite": "oracle"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sb := range listed {
		who := "other"
		if sb.ID == h.sandbox {
			who = "self"
		}
		o.Listed = append(o.Listed, who+":"+sb.State)
	}
	h.WriteFile(ctxT(t), e2btest.Home+"/kept", []byte("state"), 0o644)
	paused, _ := New(Options{APIURL: s.URL, SandboxURL: s.URL, APIKey: testKey, OnDestroy: "pause"})
	h.c = paused // Destroy applies the pause
	h.Destroy(ctxT(t))
	o.Paused = states(s)[h.sandbox]
	again := spawnT(t, provider(t, s, Options{SandboxID: h.sandbox, OwnAttached: true}), contexts.SpawnConfig{})
	defer again.Destroy(ctxT(t))
	b, _ = again.ReadFile(ctxT(t), e2btest.Home+"/kept")
	o.Resumed = string(b)
	ic := provider(t, s, Options{AutoPause: true, AutoResume: true, Timeout: time.Minute})
	idle := spawnT(t, ic, contexts.SpawnConfig{})
	defer idle.Destroy(ctxT(t))
	info, err := ic.Info(ctxT(t), idle.sandbox)
	if err != nil {
		t.Fatal(err)
	}
	o.Lifecycle.OnTimeout, o.Lifecycle.AutoResume = info.OnTimeout, info.AutoResume
	return o
}

// goTerminal is the SDK's pty scenario: the sizes stty printed before
// and after a resize, and the exit code.
func goTerminal(t *testing.T, h *Handle) ([]string, int) {
	term, err := h.OpenTerminal(ctxT(t), contexts.TerminalConfig{Cols: 100, Rows: 30})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(term, "stty size; echo $((6*7))x\n")
	text := conformance.ReadUntil(t, term, "42x")
	if err := term.Resize(120, 40); err != nil {
		t.Fatal(err)
	}
	io.WriteString(term, "stty size; echo $((5*11))y\n")
	text += conformance.ReadUntil(t, term, "55y")
	io.WriteString(term, "exit 3\n")
	code, _ := term.Wait(ctxT(t))
	return regexp.MustCompile(`(?m)^\d+ \d+(?:\r?$)`).FindAllString(strings.ReplaceAll(text, "\r", ""), -1), code
}

// oracle is the suite against replica s.
func oracle(t *testing.T, s *e2btest.Server) remotetest.Oracle[outcomes] {
	return remotetest.Oracle[outcomes]{Package: "e2b", Script: "e2b.mjs", Want: expected(),
		Env:   []string{"E2B_API_URL=" + s.URL, "E2B_SANDBOX_URL=" + s.URL, "E2B_API_KEY=" + testKey},
		Go:    func(t *testing.T) outcomes { return goSide(t, s) },
		Calls: s.Calls, Left: s.Existing,
		Covers: []string{"POST /v2/sandboxes", "POST /sandboxes", "POST /process.Process/Start", "POST /filesystem.Filesystem/ListDir",
			"POST /process.Process/Update", "GET /files", "POST /files", "DELETE /sandboxes/"}}
}

// TestOracle_SDKAgrees: the official SDK and the Go provider, against
// the same replica, see the same outcomes, and those are the expected ones.
func TestOracle_SDKAgrees(t *testing.T) { oracle(t, replica(t, e2btest.Options{})).Agree(t) }

// TestOracle_NegativeControl: one renamed field in envd's answers, and
// the oracle must notice.
func TestOracle_NegativeControl(t *testing.T) {
	oracle(t, replica(t, e2btest.Options{Mutate: remotetest.RenameExitCode})).NegativeControl(t)
}
