package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// The host's unix sockets stay closed in every network mode unless
// --allow-unix-sockets (issue 14, section 1). Every listener is the test's
// own, in the fixture (never the machine's /tmp or /run): one in a
// directory outside the writable roots, one in TMPDIR (a writable root, as
// /tmp is, where tmux and X11 keep theirs) and an abstract one.

// hostSockets are one host listener per kind of unix socket.
type hostSockets struct {
	outside, inRoot, abstract *listener
	abstractName              string
}

func listenHostSockets(t *testing.T, e *env) hostSockets {
	t.Helper()
	s := hostSockets{abstractName: "zsandbox-e2e-" + harness.RandHex(4)}
	s.outside = unixListener(t, filepath.Join(e.outside, "daemon.sock"))
	s.inRoot = unixListener(t, filepath.Join(e.tmp, "daemon.sock"))
	s.abstract = listenStream(t, "unix", "@"+s.abstractName)
	return s
}

// attackAll tries every socket once with the given zsandbox flags.
func (s hostSockets) attackAll(e *env, flags ...string) map[string]result {
	run := func(args ...string) result {
		return e.run(append(append([]string{"exec"}, flags...), append([]string{"--", attackBin}, args...)...)...)
	}
	return map[string]result{
		"outside":  run("unix", s.outside.addr),
		"in-root":  run("unix", s.inRoot.addr),
		"abstract": run("abstract", s.abstractName),
	}
}

// socketKinds name the listeners of hostSockets.
var socketKinds = []string{"outside", "in-root", "abstract"}

func (s hostSockets) byName(name string) *listener {
	return map[string]*listener{"outside": s.outside, "in-root": s.inRoot, "abstract": s.abstract}[name]
}

// TestHostUnixSocketsClosedByDefault: under --network allow and deny, with
// Landlock and without, no host unix socket is reached (the listener sees
// nothing) and the refusal gets the unix-socket hint.
func TestHostUnixSocketsClosedByDefault(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		s := listenHostSockets(t, e)
		for _, flags := range [][]string{
			{"--network", "allow"}, {"--network", "deny"},
			{"--network", "allow", "--landlock", "off"}, {"--network", "deny", "--landlock", "off"},
		} {
			for name, r := range s.attackAll(e, flags...) {
				what := name + " " + strings.Join(flags, " ")
				mustFail(t, r, what)
				if !strings.Contains(r.Stderr, "zsandbox: hint: unix sockets are off") || !strings.Contains(r.Stderr, "--allow-unix-sockets") {
					t.Errorf("%s: no unix-socket hint naming --allow-unix-sockets\n%s", what, r)
				}
			}
		}
		for _, name := range socketKinds {
			s.byName(name).quiet(t, name)
		}
	})
}

// TestAllowUnixSockets: --allow-unix-sockets opens them, with a warning
// line per run naming what becomes reachable; under --network deny the
// host's abstract sockets stay out of reach (own network namespace).
func TestAllowUnixSockets(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		s := listenHostSockets(t, e)
		for _, net := range []string{"allow", "deny"} {
			rs := s.attackAll(e, "--network", net, "--allow-unix-sockets")
			for name, r := range rs {
				what := name + " --network " + net + " --allow-unix-sockets"
				if name == "abstract" && net == "deny" {
					mustFail(t, r, what)
				} else {
					mustSucceed(t, r, what)
				}
				if !strings.Contains(r.Stderr, "zsandbox: warning: --allow-unix-sockets") || !strings.Contains(r.Stderr, "docker.sock") {
					t.Errorf("%s: no warning line naming docker.sock\n%s", what, r)
				}
			}
		}
		want := map[string]int32{"outside": 2, "in-root": 2, "abstract": 1}
		for name, n := range want {
			l := s.byName(name)
			if !waitFor(2*time.Second, func() bool { return l.hits.Load() == n }) {
				t.Errorf("%s: listener saw %d connections with --allow-unix-sockets, want %d", name, l.hits.Load(), n)
			}
		}
		r := e.run("exec", "--allow-unix-sockets", "--no-warning", "--", "true")
		if strings.Contains(r.Stderr, "warning") {
			t.Errorf("--no-warning still warns\n%s", r)
		}
		doc := e.unixExplain(t, "--allow-unix-sockets")
		if !doc.UnixSockets.Allowed || doc.Seccomp.UnixDeny {
			t.Errorf("explain with --allow-unix-sockets: %+v", doc)
		}
	})
}

// unixDoc is the part of explain's JSON about unix sockets.
type unixDoc struct {
	UnixSockets struct {
		Allowed bool
		Fence   string
	} `json:"unixSockets"`
	Seccomp struct {
		UnixDeny bool `json:"unixDeny"`
	} `json:"seccomp"`
	Landlock struct {
		Status string
		Reason string
	} `json:"landlock"`
}

func (e *env) unixExplain(t *testing.T, flags ...string) unixDoc {
	t.Helper()
	out, err := e.command(e.proj, append([]string{"explain", "--format", "json"}, flags...)...).Output()
	var doc unixDoc
	if err != nil || json.Unmarshal(out, &doc) != nil {
		t.Fatalf("explain %v: %v\n%s", flags, err, out)
	}
	return doc
}

// TestTmuxNotDriven: a real tmux server of the same user on a socket the
// command can name is not driven: send-keys from inside leaves no marker.
// With --allow-unix-sockets the same keys do arrive, which proves the test
// can see it.
func TestTmuxNotDriven(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal("tmux is needed (scripts/ci-linux.sh installs it)")
	}
	each(t, func(t *testing.T, e *env) {
		sock := filepath.Join(e.tmp, "tmux-default")
		srv := e.command(e.base)
		srv.Path, srv.Args = tmux, []string{"tmux", "-S", sock, "new-session", "-d", "-s", "zs", "sh"}
		if out, err := srv.CombinedOutput(); err != nil {
			t.Fatalf("starting tmux: %v\n%s", err, out)
		}
		t.Cleanup(func() { exec.Command(tmux, "-S", sock, "kill-server").Run() })
		marker := filepath.Join(e.outside, "typed-by-the-sandbox")
		r := e.run("exec", "--network", "allow", "--", "tmux", "-S", sock, "send-keys", "-t", "zs", "touch "+marker, "Enter")
		mustFail(t, r, "tmux send-keys from inside")
		time.Sleep(300 * time.Millisecond) // what was typed would have run by now
		harness.MustNotExist(t, marker)
		r = e.run("exec", "--network", "allow", "--allow-unix-sockets", "--", "tmux", "-S", sock, "send-keys", "-t", "zs", "touch "+marker, "Enter")
		mustSucceed(t, r, "tmux send-keys with --allow-unix-sockets")
		if !waitFor(3*time.Second, func() bool { _, err := os.Stat(marker); return err == nil }) {
			t.Errorf("with --allow-unix-sockets the keys did not arrive: the test cannot tell")
		}
	})
}

// TestOwnUnixSocketServer: the command's own unix socket server in the cwd
// works where the kernel can tell its sockets from the host's (explain says
// "landlock"); where it cannot (explain says "seccomp"), the socket is
// refused with the unix-socket hint, and --allow-unix-sockets makes it work.
func TestOwnUnixSocketServer(t *testing.T) {
	const serve = `import socket, os
s = socket.socket(socket.AF_UNIX); s.bind("own.sock"); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect("own.sock"); c.send(b"hi")
print(s.accept()[0].recv(2).decode())`
	each(t, func(t *testing.T, e *env) {
		doc := e.unixExplain(t)
		r := e.run("exec", "--", "python3", "-c", serve)
		switch doc.UnixSockets.Fence {
		case "landlock":
			mustSucceed(t, r, "own server where Landlock tells sockets apart")
		case "seccomp":
			mustFail(t, r, "own server where only seccomp can refuse")
			if !doc.Seccomp.UnixDeny || !strings.Contains(r.Stderr, "--allow-unix-sockets") {
				t.Errorf("refusal without explain's statement or the hint: %+v\n%s", doc, r)
			}
		default:
			t.Errorf("explain: unix sockets fence %q", doc.UnixSockets.Fence)
		}
		os.Remove(filepath.Join(e.proj, "own.sock"))
		r = e.run("exec", "--allow-unix-sockets", "--", "python3", "-c", serve)
		if r.Code != 0 || !strings.Contains(r.Stdout, "hi") {
			t.Errorf("own server with --allow-unix-sockets\n%s", r)
		}
	})
}

// TestIoUringSocketRoute: a user profile that allows io_uring cannot open
// a route to a host unix socket through IORING_OP_SOCKET and
// IORING_OP_CONNECT, under --network deny or allow; the same attack outside
// the sandbox reaches the listener, which proves it works.
func TestIoUringSocketRoute(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		prof := filepath.Join(e.base, "allow-io_uring.json")
		e.write(prof, `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_ERRNO"}]}`)
		l := unixListener(t, filepath.Join(e.outside, "uring.sock"))
		for _, net := range []string{"deny", "allow"} {
			r := e.run("exec", "--network", net, "--seccomp-profile", prof, "--", attackBin, "uring-unix", l.addr)
			mustFail(t, r, "io_uring connect under --network "+net)
			if !strings.Contains(r.Stderr, "io_uring_setup: operation not permitted") {
				t.Errorf("--network %s: io_uring_setup not refused by the filter\n%s", net, r)
			}
		}
		l.quiet(t, "io_uring route")
		out := e.command(e.proj)
		out.Path, out.Args = attackBin, []string{attackBin, "uring-unix", l.addr}
		if b, err := out.CombinedOutput(); err != nil {
			t.Fatalf("the io_uring attack fails outside the sandbox too, so this test proves nothing: %v\n%s", err, b)
		}
		if !waitFor(2*time.Second, func() bool { return l.hits.Load() == 1 }) {
			t.Errorf("outside the sandbox the io_uring attack reached the listener %d times, want 1", l.hits.Load())
		}
	})
}

// TestFifoOutsideRoots: a FIFO outside the writable roots, read by a host
// process, is not a channel out: Landlock refuses opening it for writing
// (a read-only mount does not). With --landlock off the write goes
// through, which explain lists as a gap.
func TestFifoOutsideRoots(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		fifo := filepath.Join(e.outside, "pipe")
		if err := syscall.Mkfifo(fifo, 0o666); err != nil {
			t.Fatal(err)
		}
		os.Chown(fifo, e.id.UID, e.id.GID)
		read := func(flags ...string) (result, string) {
			// The reader is open before the writer, so a write that gets
			// through does not block, and its bytes wait in the pipe.
			rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			r := e.sh("echo LEAKED > "+fifo, flags...)
			buf := make([]byte, 64)
			n, _ := rd.Read(buf)
			return r, string(buf[:max(n, 0)])
		}
		r, got := read()
		mustFail(t, r, "write into a FIFO outside the roots")
		if got != "" {
			t.Errorf("the host reader got %q through the FIFO", got)
		}
		r, got = read("--landlock", "off")
		if r.Code != 0 || got != "LEAKED\n" {
			t.Errorf("--landlock off: write %d, reader got %q; want the documented gap (write through)\n%s", r.Code, got, r)
		}
		out, _ := e.command(e.proj, "explain", "--landlock", "off").Output()
		if !strings.Contains(string(out), "not enforced: writes into FIFOs") {
			t.Errorf("explain --landlock off does not list the FIFO gap:\n%s", out)
		}
	})
}

// TestSeccompProfileHidingLandlock (issue 15): under --landlock auto, a
// --seccomp-profile that makes landlock_create_ruleset fail used to let the
// stage 2 run the command without Landlock while explain said "enforced".
// Now explain says "refused", exec exits 127 and the command does not run;
// --landlock off still runs it, as asked.
func TestSeccompProfileHidingLandlock(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		prof := filepath.Join(e.base, "no-landlock.json")
		e.write(prof, `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["landlock_create_ruleset"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}`)
		doc := e.unixExplain(t, "--seccomp-profile", prof)
		if doc.Landlock.Status != "refused" || !strings.Contains(doc.Landlock.Reason, "landlock_create_ruleset") {
			t.Errorf("explain: landlock %+v, want refused naming landlock_create_ruleset", doc.Landlock)
		}
		text, _ := e.command(e.proj, "explain", "--seccomp-profile", prof).Output()
		if !strings.Contains(string(text), "landlock: refused: --seccomp-profile") {
			t.Errorf("explain text:\n%s", text)
		}
		marker := filepath.Join(e.proj, "ran")
		r := e.run("exec", "--seccomp-profile", prof, "--", "touch", marker)
		if r.Code != 127 || !strings.Contains(r.Stderr, "refuses landlock_create_ruleset") || !strings.Contains(r.Stderr, "did not run") {
			t.Errorf("exec: want 127 naming landlock_create_ruleset\n%s", r)
		}
		harness.MustNotExist(t, marker)
		mustSucceed(t, e.run("exec", "--landlock", "off", "--seccomp-profile", prof, "--", "touch", marker), "--landlock off")
	})
}

// TestAllowUnixSocketsPrecedence: flag > environment > settings > default,
// as for every setting.
func TestAllowUnixSocketsPrecedence(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		settings := filepath.Join(e.base, "settings.json")
		e.write(settings, `{"allowUnixSockets": true}`)
		cases := []struct {
			env   []string
			flags []string
			want  bool
		}{
			{nil, nil, false},
			{nil, []string{"--settings", settings}, true},
			{nil, []string{"--settings", settings, "--allow-unix-sockets=false"}, false},
			{[]string{"ZSANDBOX_ALLOW_UNIX_SOCKETS=false"}, []string{"--settings", settings}, false},
			{[]string{"ZSANDBOX_ALLOW_UNIX_SOCKETS=true"}, nil, true},
		}
		for _, c := range cases {
			cmd := e.command(e.proj, append([]string{"explain", "--format", "json"}, c.flags...)...)
			cmd.Env = append(cmd.Env, c.env...)
			out, err := cmd.Output()
			var doc unixDoc
			if err != nil || json.Unmarshal(out, &doc) != nil {
				t.Fatalf("explain %v %v: %v\n%s", c.env, c.flags, err, out)
			}
			if doc.UnixSockets.Allowed != c.want {
				t.Errorf("env %v flags %v: allowed = %v, want %v", c.env, c.flags, doc.UnixSockets.Allowed, c.want)
			}
		}
	})
}
