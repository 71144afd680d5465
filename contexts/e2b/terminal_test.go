//go:build linux

package e2b

import (
	"io"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/conformance"
	"github.com/zsandbox/zsandbox/contexts/e2b/e2btest"
)

// A terminal is a real pty in the sandbox: the shell sees a tty of the
// size asked for, a resize reaches the kernel's winsize (stty reads it),
// and a killed shell is gone from the sandbox, seen by another command.
func TestReplica_TerminalIsARealPty(t *testing.T) {
	s := replica(t, e2btest.Options{})
	h := spawnT(t, provider(t, s, Options{}), contexts.SpawnConfig{})
	defer h.Destroy(ctxT(t))
	term, err := h.OpenTerminal(ctxT(t), contexts.TerminalConfig{Cols: 100, Rows: 30, Env: []string{"MARK=pty-shell"}})
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(term, "[ -t 0 ] && echo is-a-tty; stty size; echo \"$MARK/$TERM\"; echo $((40+2))x\n")
	got := conformance.ReadUntil(t, term, "42x")
	for _, want := range []string{"is-a-tty", "30 100", "pty-shell/xterm-256color"} {
		if !strings.Contains(got, want) {
			t.Errorf("terminal output lacks %q: %q", want, got)
		}
	}
	if err := term.Resize(120, 40); err != nil {
		t.Fatal(err)
	}
	io.WriteString(term, "stty size; echo $((50+5))y\n")
	if got := conformance.ReadUntil(t, term, "55y"); !strings.Contains(got, "40 120") {
		t.Errorf("after Resize(120, 40) stty says %q", got)
	}
	io.WriteString(term, "sleep 1000\n")
	if err := term.Kill(); err != nil {
		t.Fatal(err)
	}
	if code, err := term.Wait(ctxT(t)); err != nil || code != contexts.SignalExit(syscall.SIGKILL) {
		t.Errorf("killed terminal: Wait = %d, %v; want %d", code, err, contexts.SignalExit(syscall.SIGKILL))
	}
	if r := execT(t, h, "ps -o args | grep -c '[s]leep 1000'"); strings.TrimSpace(string(r.Stdout)) != "0" {
		t.Errorf("the killed terminal's command still runs in the sandbox: %q", r.Stdout)
	}
	calls := s.Calls()
	for _, want := range []string{"POST /process.Process/Update", "POST /process.Process/SendInput", "POST /process.Process/SendSignal"} {
		if !slices.Contains(calls, want) {
			t.Errorf("no %s among the replica's calls", want)
		}
	}
}

// Destroy of a sandbox that is kept (pause) kills the terminals the
// handle opened: a shell does not outlive its handle.
func TestReplica_DestroyKillsTerminals(t *testing.T) {
	s := replica(t, e2btest.Options{})
	h := spawnT(t, provider(t, s, Options{OnDestroy: "leave"}), contexts.SpawnConfig{})
	term, err := h.OpenTerminal(ctxT(t), contexts.TerminalConfig{Args: []string{"sh", "-c", "echo up; exec sleep 1001"}})
	if err != nil {
		t.Fatal(err)
	}
	conformance.ReadUntil(t, term, "up")
	if err := h.Destroy(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if code, err := term.Wait(ctxT(t)); err != nil || code != contexts.SignalExit(syscall.SIGKILL) {
		t.Errorf("after Destroy: Wait = %d, %v; want it killed", code, err)
	}
	again := spawnT(t, provider(t, s, Options{SandboxID: h.Kept(), OwnAttached: true}), contexts.SpawnConfig{})
	defer again.Destroy(ctxT(t))
	if r := execT(t, again, "ps -o args | grep -c '[s]leep 1001'"); strings.TrimSpace(string(r.Stdout)) != "0" {
		t.Errorf("the terminal outlived Destroy in the kept sandbox: %q", r.Stdout)
	}
}
