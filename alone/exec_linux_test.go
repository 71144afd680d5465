package alone

// Real tests of the Landlock-only backend. testdata/child, built with cgo
// like zsandbox, runs Exec with the filter libseccomp compiles from
// the default profile; the command is this test binary as the "alone"
// probe helper, or a shell script. Every attack is checked from outside,
// as root and as harness.TestUser, and where the host alone would allow it, a
// control run without the sandbox shows the refusal is the sandbox's.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
	"github.com/zsandbox/zsandbox/internal/probe"
)

// aloneBinary builds testdata/child next to the test binary's copy, where
// every identity can run it; ZSANDBOX_ALONE_BIN names a prebuilt one (for a
// user who cannot build, e.g. without the module cache).
func aloneBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ZSANDBOX_ALONE_BIN"); p != "" {
		return p
	}
	p, err := harness.Build("alone", []string{"CGO_ENABLED=1"}, "build", "./testdata/child")
	if err != nil {
		err = fmt.Errorf("%v (needs cgo and libseccomp)", err)
		if os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return p
}

// aloneFixture adds a home with credentials to the fixture: ~/.ssh/id_rsa
// and ~/.netrc hold the secret, their siblings do not.
type aloneFixture struct {
	*harness.Fixture
	home, secret string
}

func newAloneFixture(t *testing.T, id harness.Identity) *aloneFixture {
	t.Helper()
	f := &aloneFixture{Fixture: harness.NewFixture(t, id), secret: "zs-secret-" + harness.RandHex(8)}
	f.home = filepath.Join(f.Base, "home")
	f.Mkdir(filepath.Join(f.home, ".ssh"))
	f.Mkdir(filepath.Join(f.home, "proj"))
	f.Write(filepath.Join(f.home, ".ssh", "id_rsa"), f.secret+"\n")
	f.Write(filepath.Join(f.home, ".netrc"), f.secret+"\n")
	f.Write(filepath.Join(f.home, ".netrc-old"), "fine\n")
	f.Write(filepath.Join(f.home, "proj", "main.go"), "fine\n")
	os.Chmod(filepath.Join(f.home, ".ssh"), 0o700)
	return f
}

// config is the policy of a command run from f.Root: that one writable
// root, and the two credentials hidden.
func (f *aloneFixture) config(deny bool) Config {
	return Config{
		Writable:    []string{f.Root},
		Hidden:      []string{filepath.Join(f.home, ".ssh"), filepath.Join(f.home, ".netrc")},
		NetworkDeny: deny,
	}
}

// aloneCmd is the command that runs argv under c as the identity; wrap, if
// given, goes in front (an outer bwrap).
func (f *aloneFixture) aloneCmd(c Config, argv []string, env []string, wrap ...string) *exec.Cmd {
	js, err := json.Marshal(c)
	if err != nil {
		f.T.Fatal(err)
	}
	env = append(env, "ZSANDBOX_ALONE="+string(js))
	full := append(append(wrap, aloneBinary(f.T)), argv...)
	return f.Command(full[0], full[1:], env...)
}

func (f *aloneFixture) alone(c Config, argv []string, env ...string) harness.Result {
	f.T.Helper()
	return harness.Run(f.T, f.aloneCmd(c, argv, env))
}

// sandboxed runs the probes under c and returns their outcomes.
func (f *aloneFixture) sandboxed(c Config, probes ...string) map[string]string {
	f.T.Helper()
	return f.probeRun(f.aloneCmd(c, append([]string{harness.Binary(f.T)}, probes...), []string{helperEnv + "=alone"}))
}

// direct runs the probes without a sandbox: the control.
func (f *aloneFixture) direct(probes ...string) map[string]string {
	f.T.Helper()
	return f.probeRun(f.Command(harness.Binary(f.T), probes, helperEnv+"=alone"))
}

func (f *aloneFixture) probeRun(cmd *exec.Cmd) map[string]string {
	f.T.Helper()
	r := harness.Run(f.T, cmd)
	if r.Code != 0 {
		f.T.Fatalf("probe helper exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	return probe.Parse(r.Stdout)
}

// expect is one probe and the outcome it must have; "!ok" is any failure.
type expect struct{ probe, want string }

func check(t *testing.T, label string, got map[string]string, want []expect) {
	t.Helper()
	for _, e := range want {
		g, ok := got[e.probe]
		switch {
		case !ok:
			t.Errorf("%s: %s did not run", label, e.probe)
		case e.want == "!ok" && g == "ok", e.want != "!ok" && g != e.want:
			t.Errorf("%s: %s = %s, want %s", label, e.probe, g, e.want)
		}
	}
}

func probes(want []expect) []string {
	out := make([]string, len(want))
	for i, e := range want {
		out[i] = e.probe
	}
	return out
}

// TestAloneWrites: the command writes inside the writable root and nowhere
// else; the host file is unchanged.
func TestAloneWrites(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		out := f.Outside
		shm := "/dev/shm/zsandbox-alone-" + harness.RandHex(6)
		t.Cleanup(func() { os.Remove(shm) })
		want := []expect{
			{"create:" + f.Root + "/new", "ok"},
			{"mkdir:" + f.Root + "/dir", "ok"},
			{"create:" + out + "/new", "EACCES"},
			{"write:" + out + "/file", "EACCES"},
			{"truncate:" + out + "/file", "EACCES"},
			{"mkdir:" + out + "/dir", "EACCES"},
			{"rename:" + out + "/file:" + f.Root + "/moved", "EACCES"},
			{"create:" + f.Base + "/new", "EACCES"},
			{"create:" + shm, "ok"},
		}
		check(t, "sandboxed", f.sandboxed(f.config(true), probes(want)...), want)
		harness.MustContain(t, filepath.Join(f.Root, "new"), "x")
		harness.MustContain(t, filepath.Join(out, "file"), "original\n")
		harness.MustNotExist(t, filepath.Join(out, "new"))
		harness.MustNotExist(t, filepath.Join(out, "dir"))
		harness.MustNotExist(t, filepath.Join(f.Base, "new"))
		// Control: file permissions alone allow every write above.
		ctl := []expect{{"create:" + out + "/ctl", "ok"}, {"create:" + f.Base + "/ctl", "ok"}}
		check(t, "control", f.direct(probes(ctl)...), ctl)
	})
}

// TestAloneHiddenReads: the hidden directory and file cannot be read,
// directly or by any other path to them; their siblings can.
func TestAloneHiddenReads(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		key := filepath.Join(f.home, ".ssh", "id_rsa")
		want := []expect{
			{"read:" + key, "EACCES"},
			{"list:" + f.home + "/.ssh", "EACCES"},
			{"read:" + f.home + "/.netrc", "EACCES"},
			{"read:" + f.Root + "/../home/.ssh/id_rsa", "EACCES"},
			{"read:/proc/self/root" + key, "EACCES"},
			{"symlink:" + key + ":" + f.Root + "/link", "ok"}, // planted in the writable root
			{"read:" + f.Root + "/link", "EACCES"},
			{"link:" + key + ":" + f.Root + "/hardlink", "EXDEV"}, // Landlock: the link would gain read
			{"read:" + f.home + "/.netrc-old", "ok"},
			{"read:" + f.home + "/proj/main.go", "ok"},
			{"list:" + f.home + "/proj", "ok"},
			{"read:" + f.Outside + "/file", "ok"},
			{"read:/etc/passwd", "ok"},
		}
		check(t, "sandboxed", f.sandboxed(f.config(true), probes(want)...), want)
		harness.MustNotExist(t, filepath.Join(f.Root, "hardlink"))
		ctl := []expect{{"read:" + key, "ok"}, {"read:" + f.home + "/.netrc", "ok"}}
		check(t, "control", f.direct(probes(ctl)...), ctl)
	})
}

// TestAloneSecretNotInOutput: a shell script tries every route it has to
// the credentials; none of their content reaches its output, and the
// siblings' does.
func TestAloneSecretNotInOutput(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		h, r := f.home, f.Root
		script := strings.Join([]string{
			"cat " + h + "/.ssh/id_rsa " + h + "/.netrc",
			"cat " + r + "/../home/.ssh/id_rsa /proc/self/root" + h + "/.ssh/id_rsa",
			"ln -s " + h + "/.ssh " + r + "/ssh && cat " + r + "/ssh/id_rsa",
			"ln " + h + "/.netrc " + r + "/netrc; cat " + r + "/netrc",
			"cp -r " + h + "/.ssh " + r + "/copy; cat " + r + "/copy/id_rsa",
			"ls -la " + h + "/.ssh; grep -rs zs-secret " + h + "; tar cf - " + h + "/.ssh 2>&1 | head -c 4096",
			"cat " + h + "/.netrc-old " + h + "/proj/main.go",
		}, "\n")
		res := f.alone(f.config(true), []string{"sh", "-c", script})
		if strings.Contains(res.Stdout+res.Stderr, f.secret) {
			t.Errorf("the secret leaked:\nstdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
		}
		if !strings.HasSuffix(res.Stdout, "fine\nfine\n") || !strings.Contains(res.Stderr, "Permission denied") {
			t.Errorf("siblings not readable or no denial:\nstdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
		}
	})
}

// TestAloneDevices: only the harmless device files open; raw disks and the
// kernel log do not, even for root, who owns them.
func TestAloneDevices(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		want := []expect{
			{"write:/dev/null", "ok"}, {"read:/dev/zero", "ok"}, {"write:/dev/full", "ok"},
			{"read:/dev/urandom", "ok"}, {"read:/dev/random", "ok"}, {"pty", "ok"},
			{"mknod:" + f.Root + "/fifo", "ok"},
		}
		var closed, reads []expect
		for _, d := range []string{"/dev/mem", "/dev/kmsg", "/dev/sda", "/dev/vda", "/dev/nvme0n1", "/dev/loop0"} {
			if _, err := os.Stat(d); err == nil {
				closed = append(closed, expect{"read:" + d, "EACCES"}, expect{"write:" + d, "EACCES"})
				reads = append(reads, expect{"read:" + d, "EACCES"})
			}
		}
		if len(closed) == 0 {
			t.Fatal("no sensitive device file on this host to try")
		}
		got := f.sandboxed(f.config(true), append(probes(want), probes(closed)...)...)
		check(t, "sandboxed", got, append(want, closed...))
		if id.UID == 0 { // control: root opens them by file permissions alone
			opened := 0
			for _, v := range f.direct(probes(reads)...) {
				if v == "ok" {
					opened++
				}
			}
			if opened == 0 {
				t.Errorf("control: root opened none of %v, so the test proves nothing", probes(reads))
			}
		}
	})
}

// TestAlonePrivileges: the command runs with no capability, even as root,
// with no_new_privs and the seccomp filter, which refuses TIOCSTI (junk in
// the high bits too) and io_uring.
func TestAlonePrivileges(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		none := "0000000000000000"
		want := []expect{
			{"status:CapEff", none}, {"status:CapPrm", none}, {"status:CapInh", none}, {"status:CapAmb", none},
			{"status:NoNewPrivs", "1"}, {"status:Seccomp", "2"},
			{"tiocsti:low", "EPERM"}, {"tiocsti:high", "EPERM"}, {"io_uring", "EPERM"},
		}
		if id.UID == 0 {
			want = append(want, expect{"status:CapBnd", none})
		}
		check(t, "sandboxed", f.sandboxed(f.config(true), probes(want)...), want)
		// Control: the kernel alone allows them, so the refusals are the
		// filter's.
		for p, v := range f.direct("tiocsti:low", "tiocsti:high", "io_uring") {
			if v != "ok" && os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" {
				t.Errorf("control: %s = %s: the kernel refuses it too, so the test proves nothing", p, v)
			} else if v != "ok" {
				t.Logf("control: %s = %s: the kernel refuses it too here", p, v)
			}
		}
	})
}

// TestAloneGit: the everyday work a sandbox must not break.
func TestAloneGit(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		script := "cd " + f.Root + " && git init -q && echo hi > a.txt && git add a.txt && " +
			"git -c user.name=zs -c user.email=zs@example.com commit -qm first && git log --format=%s"
		r := f.alone(f.config(true), []string{"sh", "-c", script})
		if r.Code != 0 || r.Stdout != "first\n" {
			t.Errorf("git: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
		}
	})
}

// TestAloneExec: the command replaces zsandbox: its exit status and death
// by signal pass through, it reads zsandbox's stdin, and no descriptor
// above stderr reaches it.
func TestAloneExec(t *testing.T) {
	harness.RequireABI(t, hostABI, MinABI)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := newAloneFixture(t, id)
		c := f.config(true)
		if r := f.alone(c, []string{"sh", "-c", "echo out; exit 7"}); r.Code != 7 || r.Stdout != "out\n" || r.Stderr != "" {
			t.Errorf("exit status: %d, %q, %q", r.Code, r.Stdout, r.Stderr)
		}
		if r := f.alone(c, []string{"sh", "-c", "kill -TERM $$"}); r.Code != 128+15 {
			t.Errorf("death by signal: exit %d, stderr %q", r.Code, r.Stderr)
		}
		cmd := f.aloneCmd(c, []string{"cat"}, nil)
		cmd.Stdin = strings.NewReader("from stdin\n")
		if r := harness.Run(t, cmd); r.Code != 0 || r.Stdout != "from stdin\n" {
			t.Errorf("stdin: exit %d, %q, %q", r.Code, r.Stdout, r.Stderr)
		}
		extra, err := os.Open(filepath.Join(f.Outside, "file"))
		if err != nil {
			t.Fatal(err)
		}
		defer extra.Close()
		cmd = f.aloneCmd(c, []string{"ls", "-l", "/proc/self/fd"}, nil)
		cmd.ExtraFiles = []*os.File{extra}
		if r := harness.Run(t, cmd); r.Code != 0 || harness.LeakedFDs(r.Stdout) != "" {
			t.Errorf("leaked descriptors %q (exit %d, stderr %q)\n%s", harness.LeakedFDs(r.Stdout), r.Code, r.Stderr, r.Stdout)
		}
	})
}
