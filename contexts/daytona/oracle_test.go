//go:build linux

package daytona

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/daytona/daytonatest"
	"github.com/zsandbox/zsandbox/contexts/internal/remotetest"
)

// outcome is one command's result as the SDK's executeCommand gives it:
// the exit code and the output, stdout and stderr combined.
type outcome struct {
	ExitCode int    `json:"exitCode"`
	Output   string `json:"output"`
}

type outcomes struct {
	Exit, Env, Pwd, Cwd, Big outcome
	Read                     string     `json:"read"`
	List                     []string   `json:"list"`
	Missing                  string     `json:"missing"`
	Listed                   []string   `json:"listed"`
	Stopped                  string     `json:"stopped"`
	Idle                     [][3]int32 `json:"idle"`
}

func expected() outcomes {
	return outcomes{
		Exit: outcome{3, "out\nerr\n"}, Env: outcome{0, "c1-p1"}, Pwd: outcome{0, daytonatest.Home + "\n"},
		Cwd: outcome{0, daytonatest.Home + "/sub\n"}, Big: outcome{0, "300000\n"}, Read: "hello\n",
		List: []string{"a b.txt:file:6", "second:file:3"}, Missing: "404", Listed: []string{"self"}, Stopped: "stopped", Idle: [][3]int32{{15, 60, -1}},
	}
}

func needOracle(t *testing.T) { remotetest.NeedOracle(t, "@daytonaio/sdk") }

// goSide runs the same scenarios with the provider (stdout then stderr
// stand for the SDK's combined output).
func goSide(t *testing.T, s *daytonatest.Server) outcomes {
	c := provider(t, s, Options{OnDestroy: "stop"})
	labels := map[string]any{"labels": map[string]string{"suite": "oracle"}}
	hh, err := c.SpawnWith(ctxT(t), contexts.SpawnConfig{Env: []string{"FROM_CREATE=c1"}}, labels)
	if err != nil {
		t.Fatal(err)
	}
	h := hh.(*Handle)
	run := func(cmd contexts.Cmd) outcome {
		r, err := h.Exec(ctxT(t), cmd)
		if err != nil {
			t.Fatalf("Exec: %v", err)
		}
		return outcome{r.ExitCode, string(r.Stdout) + string(r.Stderr)}
	}
	var o outcomes
	o.Exit = run(contexts.Cmd{Shell: "echo out; echo err >&2; exit 3"})
	o.Env = run(contexts.Cmd{Shell: `printf %s "$FROM_CREATE"; printf %s "$PER_CMD"`, Env: []string{"PER_CMD=-p1"}})
	o.Pwd = run(contexts.Cmd{Args: []string{"pwd"}})
	run(contexts.Cmd{Args: []string{"mkdir", "-p", daytonatest.Home + "/sub"}})
	o.Cwd = run(contexts.Cmd{Args: []string{"pwd"}, Cwd: daytonatest.Home + "/sub"})
	o.Big = run(contexts.Cmd{Shell: `head -c 300000 /dev/zero | tr "\0" x | wc -c`})
	h.WriteFile(ctxT(t), daytonatest.Home+"/dir/a b.txt", []byte("hello\n"), 0o644)
	h.WriteFile(ctxT(t), daytonatest.Home+"/dir/second", []byte("two"), 0o644)
	b, _ := h.ReadFile(ctxT(t), daytonatest.Home+"/dir/a b.txt")
	o.Read = string(b)
	list, _ := h.ListFiles(ctxT(t), daytonatest.Home+"/dir")
	for _, f := range list {
		kind := "file"
		if f.IsDir {
			kind = "dir"
		}
		o.List = append(o.List, fmt.Sprintf("%s:%s:%d", f.Name, kind, f.Size))
	}
	slices.Sort(o.List)
	if _, err := h.ReadFile(ctxT(t), daytonatest.Home+"/nope"); errors.Is(err, contexts.ErrNotFound) && strings.Contains(err.Error(), "404") {
		o.Missing = "404"
	}
	listed, err := h.c.List(ctxT(t), map[string]string{"suite": "oracle"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sb := range listed {
		who := "other"
		if sb.ID == h.sandbox {
			who = "self"
		}
		o.Listed = append(o.Listed, who)
	}
	h.Destroy(ctxT(t))
	o.Stopped = states(s)[h.sandbox]
	h.c.api.SandboxAPI.DeleteSandbox(ctxT(t), h.sandbox).Execute() // the SDK's scenario deletes it too
	stop, archive, del := int32(15), int32(60), int32(-1)
	ic := provider(t, s, Options{AutoStopInterval: &stop, AutoArchiveInterval: &archive, AutoDeleteInterval: &del})
	idle, err := ic.SpawnWith(ctxT(t), contexts.SpawnConfig{}, map[string]any{"labels": map[string]string{"suite": "idle"}})
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Destroy(ctxT(t))
	listed, err = ic.List(ctxT(t), map[string]string{"suite": "idle"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sb := range listed {
		o.Idle = append(o.Idle, [3]int32{sb.AutoStop, sb.AutoArchive, sb.AutoDelete})
	}
	return o
}

// oracle is the suite against replica s.
func oracle(t *testing.T, s *daytonatest.Server) remotetest.Oracle[outcomes] {
	return remotetest.Oracle[outcomes]{Package: "@daytonaio/sdk", Script: "daytona.mjs", Want: expected(),
		Env:   []string{"DAYTONA_API_URL=" + s.APIURL(), "DAYTONA_API_KEY=" + testKey},
		Go:    func(t *testing.T) outcomes { return goSide(t, s) },
		Calls: s.Calls, Left: s.Existing,
		Covers: []string{"POST /api/sandbox", "/process/execute", "/files/bulk-upload", "/files/bulk-download", "GET /toolbox/"}}
}

// TestOracle_SDKAgrees: the official SDK (through a toolbox that is not
// ready for its first calls) and the Go provider see the same outcomes,
// and those are the expected ones.
func TestOracle_SDKAgrees(t *testing.T) {
	oracle(t, replica(t, daytonatest.Options{ToolboxNotReady: 2})).Agree(t)
}

// TestOracle_NegativeControl: one renamed field and the oracle fails.
func TestOracle_NegativeControl(t *testing.T) {
	oracle(t, replica(t, daytonatest.Options{Mutate: remotetest.RenameExitCode})).NegativeControl(t)
}
