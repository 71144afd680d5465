// Package conformance is the behaviour every execution context must show,
// as one test suite: exit codes, stdout and stderr apart, large binary
// output byte-exact, stdin and EOF, timeouts that kill the whole process
// tree and report 124, background processes (listed, signalled,
// re-attached), env, pass-env and cwd, file round trips with awkward
// names, idempotent destroy, and nothing left behind.
//
// A context's own test calls Run with a factory:
//
//	conformance.Run(t, func(t *testing.T) conformance.Target {
//		return conformance.Target{Context: ctx, Spawn: contexts.SpawnConfig{Cwd: t.TempDir()}}
//	})
package conformance

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
)

// Target is one context under test.
type Target struct {
	Context contexts.Context
	// Spawn is the config every handle starts from; its Cwd must be
	// writable for the handle (the file tests use relative paths).
	Spawn contexts.SpawnConfig
	// Leftovers, when set, lists what of the context is still on the
	// machine (containers, temp dirs); it must be empty after Destroy.
	Leftovers func(t *testing.T) []string
}

// passName is a variable name that looks like a credential, so that a
// context that scrubs the environment drops it unless passed.
const passName = "ZCTX_CONFORMANCE_TOKEN"

// Run runs the suite against the context factory makes.
func Run(t *testing.T, factory func(t *testing.T) Target) {
	tests := []struct {
		name string
		fn   func(t *testing.T, tg Target)
	}{
		{"ExitCodes", exitCodes},
		{"StdoutStderrApart", stdoutStderr},
		{"BinaryOutput8MiB", binaryOutput},
		{"StdinEOF", stdinEOF},
		{"TimeoutKillsTree", timeoutKillsTree},
		{"Background", background},
		{"EnvPassEnvCwd", envPassEnvCwd},
		{"FilesAwkwardNames", filesAwkward},
		{"Terminal", terminal},
		{"DestroyTwice", destroyTwice},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := factory(t)
			if tg.Leftovers != nil {
				// Registered first, so it runs last: after every
				// handle's Destroy.
				t.Cleanup(func() {
					if left := tg.Leftovers(t); len(left) > 0 {
						t.Errorf("left behind after Destroy: %q", left)
					}
				})
			}
			tc.fn(t, tg)
		})
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// spawn makes a handle that is destroyed at the end of the test.
func spawn(t *testing.T, tg Target, edit func(*contexts.SpawnConfig)) contexts.Handle {
	t.Helper()
	cfg := tg.Spawn
	if edit != nil {
		edit(&cfg)
	}
	h, err := tg.Context.Spawn(ctxT(t), cfg)
	if err != nil {
		t.Fatalf("Spawn: %v (hint: %s)", err, contexts.Hint(err))
	}
	t.Cleanup(func() {
		if err := h.Destroy(context.Background()); err != nil {
			t.Errorf("Destroy: %v", err)
		}
	})
	return h
}

func run(t *testing.T, h contexts.Handle, cmd contexts.Cmd) contexts.Result {
	t.Helper()
	r, err := h.Exec(ctxT(t), cmd)
	if err != nil {
		t.Fatalf("Exec(%q %q): %v\nstderr: %s", cmd.Args, cmd.Shell, err, r.Stderr)
	}
	return r
}

func exitCodes(t *testing.T, tg Target) {
	h := spawn(t, tg, nil)
	for _, c := range []struct {
		cmd  contexts.Cmd
		want int
	}{
		{contexts.Cmd{Shell: "true"}, 0},
		{contexts.Cmd{Shell: "exit 1"}, 1},
		{contexts.Cmd{Shell: "exit 42"}, 42},
		{contexts.Cmd{Args: []string{"sh", "-c", "exit 255"}}, 255},
		{contexts.Cmd{Args: []string{"sh", "-c", "kill -TERM $$"}}, contexts.SignalExit(syscall.SIGTERM)},
		{contexts.Cmd{Args: []string{"sh", "-c", "kill -KILL $$"}}, contexts.SignalExit(syscall.SIGKILL)},
		{contexts.Cmd{Args: []string{"zctx-no-such-command"}}, 127},
	} {
		if r := run(t, h, c.cmd); r.ExitCode != c.want {
			t.Errorf("%q%q: exit %d, want %d (stderr %q)", c.cmd.Args, c.cmd.Shell, r.ExitCode, c.want, r.Stderr)
		}
	}
}

func stdoutStderr(t *testing.T, tg Target) {
	h := spawn(t, tg, nil)
	var live bytes.Buffer
	r := run(t, h, contexts.Cmd{Shell: "echo out; echo err >&2; echo out2; exit 3", Stdout: &live})
	if string(r.Stdout) != "out\nout2\n" || !strings.HasPrefix(string(r.Stderr), "err\n") || r.ExitCode != 3 {
		t.Errorf("got stdout %q stderr %q exit %d; want \"out\\nout2\\n\", \"err\\n\", 3", r.Stdout, r.Stderr, r.ExitCode)
	}
	if live.String() != string(r.Stdout) {
		t.Errorf("Cmd.Stdout saw %q, Result has %q", live.String(), r.Stdout)
	}
}

func binaryOutput(t *testing.T, tg Target) {
	h := spawn(t, tg, nil)
	data := make([]byte, 8<<20)
	rand.New(rand.NewSource(17)).Read(data)
	if err := h.WriteFile(ctxT(t), "blob.bin", data, 0o644); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	r := run(t, h, contexts.Cmd{Args: []string{"cat", "blob.bin"}})
	if !bytes.Equal(r.Stdout, data) {
		t.Errorf("cat of 8 MiB: got %d bytes, equal=false", len(r.Stdout))
	}
	r = run(t, h, contexts.Cmd{Args: []string{"sh", "-c", "cat blob.bin >&2"}})
	if !bytes.Equal(r.Stderr, data) || len(r.Stdout) != 0 {
		t.Errorf("8 MiB on stderr: got %d bytes (stdout %d)", len(r.Stderr), len(r.Stdout))
	}
	r = run(t, h, contexts.Cmd{Args: []string{"cat"}, Stdin: bytes.NewReader(data)})
	if !bytes.Equal(r.Stdout, data) {
		t.Errorf("8 MiB through stdin: got %d bytes back", len(r.Stdout))
	}
}

func stdinEOF(t *testing.T, tg Target) {
	h := spawn(t, tg, nil)
	r := run(t, h, contexts.Cmd{Args: []string{"sh", "-c", "cat; echo end"}, Stdin: strings.NewReader("a\nb")})
	if string(r.Stdout) != "a\nbend\n" {
		t.Errorf("stdin: got %q, want \"a\\nbend\\n\"", r.Stdout)
	}
	// No stdin at all must read as EOF, not hang.
	r = run(t, h, contexts.Cmd{Args: []string{"sh", "-c", "cat; echo end"}, Timeout: time.Minute})
	if string(r.Stdout) != "end\n" {
		t.Errorf("nil stdin: got %q (exit %d), want \"end\\n\"", r.Stdout, r.ExitCode)
	}
}

// timeoutKillsTree starts a grandchild that would write a file later and
// checks it never does: the timeout killed the whole tree.
func timeoutKillsTree(t *testing.T, tg Target) {
	h := spawn(t, tg, nil)
	r := run(t, h, contexts.Cmd{
		Shell:   "echo started > started; (sleep 2; echo late > late) & sleep 60",
		Timeout: 700 * time.Millisecond,
	})
	if r.ExitCode != contexts.ExitTimeout || !r.TimedOut {
		t.Fatalf("exit %d timedOut %v, want 124 true", r.ExitCode, r.TimedOut)
	}
	if _, err := h.ReadFile(ctxT(t), "started"); err != nil {
		t.Fatalf("the command never ran: %v", err)
	}
	time.Sleep(3 * time.Second) // past the grandchild's 2 s
	if b, err := h.ReadFile(ctxT(t), "late"); err == nil {
		t.Errorf("a grandchild outlived the timeout and wrote %q", b)
	}
}

func background(t *testing.T, tg Target) {
	h := spawn(t, tg, nil)
	ctx := ctxT(t)
	p, err := h.Start(ctx, contexts.Cmd{Shell: `trap 'echo got-term; exit 7' TERM; echo started; while :; do sleep 1; done`})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ReadUntil(t, p.Stdout(), "started\n")
	list, err := h.Processes(ctx)
	if err != nil {
		t.Fatalf("Processes: %v", err)
	}
	if !slices.ContainsFunc(list, func(i contexts.ProcessInfo) bool { return i.ID == p.ID() && i.Running }) {
		t.Errorf("Processes = %+v, want %s running", list, p.ID())
	}
	again, err := h.AttachProcess(ctx, p.ID())
	if err != nil {
		t.Fatalf("AttachProcess(%s): %v", p.ID(), err)
	}
	ReadUntil(t, again.Stdout(), "started\n") // replayed from the start
	if err := again.Signal(ctx, syscall.SIGTERM); err != nil {
		t.Fatalf("Signal: %v", err)
	}
	r, err := again.Wait(ctx)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if r.ExitCode != 7 || !strings.Contains(string(r.Stdout), "got-term") {
		t.Errorf("after SIGTERM: exit %d stdout %q, want 7 and got-term", r.ExitCode, r.Stdout)
	}
	if _, err := h.AttachProcess(ctx, "no-such-process"); !errors.Is(err, contexts.ErrNotFound) {
		t.Errorf("AttachProcess(unknown) = %v, want ErrNotFound", err)
	}
}

// waitFor reads r until it has produced want (or fails at EOF).
// ReadUntil reads r until what it read contains want, and returns it.
func ReadUntil(t *testing.T, r io.Reader, want string) string {
	t.Helper()
	var got []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(got, []byte(want)) {
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("output ended (%v) before %q; got %q", err, want, got)
		}
	}
	return string(got)
}

func envPassEnvCwd(t *testing.T, tg Target) {
	t.Setenv(passName, "passed-value")
	h := spawn(t, tg, func(c *contexts.SpawnConfig) { c.Env = append(c.Env, "ZCTX_A=from-spawn") })
	if err := h.WriteFile(ctxT(t), "sub dir/x", []byte("x"), 0o644); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	r := run(t, h, contexts.Cmd{Shell: `printf '%s|%s|%s|' "$ZCTX_A" "$ZCTX_B" "$` + passName + `"; pwd`,
		Env: []string{"ZCTX_B=from-cmd"}, Cwd: "sub dir"})
	got := strings.TrimSpace(string(r.Stdout))
	if !strings.HasPrefix(got, "from-spawn|from-cmd||") || !strings.HasSuffix(got, "/sub dir") {
		t.Errorf("env and cwd: got %q, want from-spawn|from-cmd|| then a path ending in /sub dir", got)
	}
	passed := spawn(t, tg, func(c *contexts.SpawnConfig) { c.PassEnv = append(c.PassEnv, passName) })
	if r := run(t, passed, contexts.Cmd{Shell: `printf %s "$` + passName + `"`}); string(r.Stdout) != "passed-value" {
		t.Errorf("--pass-env %s: got %q, want passed-value", passName, r.Stdout)
	}
}

// awkward are file names that break naive quoting.
var awkward = []string{"with space.txt", "$(touch pwned)", "new\nline", "ünïcödé ✓.txt", "-dash", "quote'\"s"}

func filesAwkward(t *testing.T, tg Target) {
	h := spawn(t, tg, nil)
	ctx := ctxT(t)
	for i, name := range awkward {
		want := []byte("content " + strconv.Itoa(i) + "\x00\xff")
		for _, p := range []string{name, filepath.Join("nested dir", name, "leaf")} {
			if err := h.WriteFile(ctx, p, want, 0o644); err != nil {
				t.Fatalf("WriteFile(%q): %v", p, err)
			}
			got, err := h.ReadFile(ctx, p)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("ReadFile(%q) = %q, %v; want %q", p, got, err, want)
			}
		}
	}
	list, err := h.ListFiles(ctx, ".")
	if err != nil {
		t.Fatalf("ListFiles: %v", err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name)
	}
	for _, name := range append(slices.Clone(awkward), "nested dir") {
		if !slices.Contains(names, name) {
			t.Errorf("ListFiles(.) = %q, missing %q", names, name)
		}
	}
	if slices.Contains(names, "pwned") {
		t.Errorf("a file name was run as a command: pwned exists")
	}
	// The command sees the same bytes under the same name.
	r := run(t, h, contexts.Cmd{Args: []string{"cat", "--", awkward[2]}})
	if !bytes.HasPrefix(r.Stdout, []byte("content 2")) {
		t.Errorf("cat of %q: %q (stderr %q)", awkward[2], r.Stdout, r.Stderr)
	}
	if _, err := h.ReadFile(ctx, "no such file"); !errors.Is(err, contexts.ErrNotFound) {
		t.Errorf("ReadFile(missing) = %v, want ErrNotFound", err)
	}
	if _, err := h.ListFiles(ctx, "no such dir"); !errors.Is(err, contexts.ErrNotFound) {
		t.Errorf("ListFiles(missing) = %v, want ErrNotFound", err)
	}
}

func destroyTwice(t *testing.T, tg Target) {
	h, err := tg.Context.Spawn(ctxT(t), tg.Spawn)
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	p, err := h.Start(ctxT(t), contexts.Cmd{Shell: "sleep 600"})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	for i := 0; i < 2; i++ {
		if err := h.Destroy(ctxT(t)); err != nil {
			t.Fatalf("Destroy #%d: %v", i+1, err)
		}
	}
	if r, err := p.Wait(ctxT(t)); err == nil && r.ExitCode == 0 {
		t.Errorf("background process survived Destroy: %+v", r)
	}
	if _, err := h.Exec(ctxT(t), contexts.Cmd{Shell: "true"}); !errors.Is(err, contexts.ErrDestroyed) && !errors.Is(err, contexts.ErrNotFound) {
		t.Errorf("Exec after Destroy = %v, want ErrDestroyed", err)
	}
	if _, err := h.ReadFile(ctxT(t), "x"); !errors.Is(err, contexts.ErrDestroyed) && !errors.Is(err, contexts.ErrNotFound) {
		t.Errorf("ReadFile after Destroy = %v, want ErrDestroyed", err)
	}
}

// HostProcesses lists host processes whose command line contains marker
// (Linux; empty elsewhere). Contexts whose processes are visible from the
// host (process, docker on Linux) use it in Leftovers.
func HostProcesses(marker string) []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []string
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err == nil && bytes.Contains(b, []byte(marker)) {
			out = append(out, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// terminal types into an interactive shell and reads its answer; a context
// without terminals must say so with ErrUnsupported.
func terminal(t *testing.T, tg Target) {
	h := spawn(t, tg, nil)
	ctx := ctxT(t)
	term, err := h.OpenTerminal(ctx, contexts.TerminalConfig{Cols: 100, Rows: 30, Args: []string{"sh"}})
	if !tg.Context.Capabilities().Terminal {
		if !errors.Is(err, contexts.ErrUnsupported) {
			t.Fatalf("OpenTerminal without the capability = %v, want ErrUnsupported", err)
		}
		t.Skipf("%s has no terminals (Capabilities().Terminal is false; it said so): %v", tg.Context.Kind(), err)
	}
	if err != nil {
		t.Fatalf("OpenTerminal: %v", err)
	}
	if err := term.Resize(120, 40); err != nil {
		t.Errorf("Resize: %v", err)
	}
	if _, err := io.WriteString(term, "stty size; echo $((6*7))x\n"); err != nil {
		t.Fatalf("write: %v", err)
	}
	// The resize reached the kernel's winsize (a 0×0 pty breaks stty,
	// ls and editors).
	if got := ReadUntil(t, term, "42x"); !strings.Contains(got, "40 120") {
		t.Errorf("after Resize(120, 40) stty size printed no \"40 120\": %q", got)
	}
	if err := term.Detach(); tg.Context.Capabilities().Detach == errors.Is(err, contexts.ErrUnsupported) {
		t.Errorf("Detach = %v, but Capabilities().Detach = %v", err, tg.Context.Capabilities().Detach)
	}
	io.WriteString(term, "exit 3\n")
	if code, err := term.Wait(ctx); err != nil || code != 3 {
		t.Errorf("terminal Wait = %d, %v; want 3", code, err)
	}
	// A second shell that is killed.
	term, err = h.OpenTerminal(ctx, contexts.TerminalConfig{Args: []string{"sh"}})
	if err != nil {
		t.Fatalf("OpenTerminal: %v", err)
	}
	if err := term.Kill(); err != nil {
		t.Errorf("Kill: %v", err)
	}
}

// HostProcessesIn lists host processes whose working directory lies in
// dir (Linux): what is left of commands a process context ran there.
func HostProcessesIn(dir string) []string {
	links, _ := filepath.Glob("/proc/[0-9]*/cwd")
	var out []string
	for _, l := range links {
		cwd, err := os.Readlink(l)
		if err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) {
			cmd, _ := os.ReadFile(filepath.Join(filepath.Dir(l), "cmdline"))
			out = append(out, filepath.Dir(l)+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return out
}

// Listen opens a TCP listener on addr ("127.0.0.1:0") for the length of
// the test and counts the connections it accepts: the outside witness of
// a network attack.
func Listen(t *testing.T, addr string) (port int, seen func() int32) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, n.Load
}
