package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/conformance"
)

// fixture is a home with a credential, a workspace, and a directory that
// lies outside every writable root (under the cache dir, not /tmp).
type fixture struct {
	home, work, outside, secret string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	cache, _ := os.UserCacheDir()
	base, err := os.MkdirTemp(cache, "zctx-sec-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	f := fixture{home: filepath.Join(base, "home"), work: t.TempDir(), outside: filepath.Join(base, "outside"),
		secret: "zctx-secret-" + filepath.Base(base)}
	for _, d := range []string{filepath.Join(f.home, ".ssh"), f.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(f.home, ".ssh", "id_rsa"), []byte(f.secret), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", f.home)
	return f
}

func (f fixture) handle(t *testing.T, opts contexts.Options) contexts.Handle {
	t.Helper()
	if opts.Zsandbox == "" {
		opts.Zsandbox = zsandboxBin
	}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.Spawn(context.Background(), contexts.SpawnConfig{Cwd: f.work})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Destroy(context.Background()) })
	return h
}

// Attack: read a credential file, directly, through a symlink the command
// plants in the workspace, and through the context's own ReadFile and
// ListFiles. The secret must appear nowhere.
func TestCredentialUnreadable(t *testing.T) {
	f := newFixture(t)
	h := f.handle(t, contexts.Options{})
	key := filepath.Join(f.home, ".ssh", "id_rsa")
	r, err := h.Exec(context.Background(), contexts.Cmd{Args: []string{"sh", "-c", `cat "$1"; ln -s "$1" planted; cat planted; cat ~/.ssh/id_rsa`, "sh", key}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(r.Stdout)+string(r.Stderr), f.secret) {
		t.Fatalf("the command read the credential: %q", r.Stdout)
	}
	if _, err := os.Lstat(filepath.Join(f.work, "planted")); err != nil {
		t.Fatalf("the symlink was not planted (the attack did not run): %v", err)
	}
	for _, p := range []string{key, "planted", filepath.Join(f.home, ".ssh")} {
		b, err := h.ReadFile(context.Background(), p)
		if !errors.Is(err, contexts.ErrDenied) || strings.Contains(string(b), f.secret) {
			t.Errorf("ReadFile(%q) = %q, %v; want ErrDenied", p, b, err)
		}
	}
	if _, err := h.ListFiles(context.Background(), filepath.Join(f.home, ".ssh")); !errors.Is(err, contexts.ErrDenied) {
		t.Errorf("ListFiles(~/.ssh) = %v, want ErrDenied", err)
	}
	list, err := h.ListFiles(context.Background(), f.home)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		if e.Name == ".ssh" {
			t.Errorf("ListFiles(~) shows the hidden .ssh")
		}
	}
}

// Attack: write outside the writable roots, directly, through a planted
// symlink (for the context's WriteFile, which runs as the caller), into a
// repository's hooks, and through a hard link.
func TestWriteOutsideRoots(t *testing.T) {
	f := newFixture(t)
	h := f.handle(t, contexts.Options{})
	target := filepath.Join(f.outside, "owned")
	r, err := h.Exec(context.Background(), contexts.Cmd{Args: []string{"sh", "-c", `echo x > "$1"; ln -s "$1" link; ln -s "$2" dirlink; echo ran`, "sh", target, f.outside}})
	if err != nil || !strings.Contains(string(r.Stdout), "ran") {
		t.Fatalf("attack did not run: %v %q %q", err, r.Stdout, r.Stderr)
	}
	for _, p := range []string{target, "link", "dirlink/owned", filepath.Join(f.outside, "new dir", "x")} {
		if err := h.WriteFile(context.Background(), p, []byte("owned"), 0o644); !errors.Is(err, contexts.ErrDenied) {
			t.Errorf("WriteFile(%q) = %v, want ErrDenied", p, err)
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatalf("%s was written from inside the context", target)
	}
	if _, err := os.Stat(filepath.Join(f.outside, "new dir")); err == nil {
		t.Errorf("WriteFile made a directory outside the roots")
	}
	// A repository in the workspace: its hooks are protected.
	if out, err := exec.Command("git", "init", "-q", f.work).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	hook := filepath.Join(f.work, ".git", "hooks", "pre-commit")
	if err := h.WriteFile(context.Background(), ".git/hooks/pre-commit", []byte("#!/bin/sh\necho pwned\n"), 0o755); !errors.Is(err, contexts.ErrDenied) {
		t.Errorf("WriteFile(.git/hooks/pre-commit) = %v, want ErrDenied", err)
	}
	if _, err := os.Stat(hook); err == nil {
		t.Errorf("a hook was planted through WriteFile")
	}
	// A hard link in the workspace to a file outside (made by the host).
	outsideFile := filepath.Join(f.outside, "hard")
	os.WriteFile(outsideFile, []byte("orig"), 0o644)
	if err := os.Link(outsideFile, filepath.Join(f.work, "hard")); err == nil {
		if err := h.WriteFile(context.Background(), "hard", []byte("owned"), 0o644); !errors.Is(err, contexts.ErrDenied) {
			t.Errorf("WriteFile through a hard link = %v, want ErrDenied", err)
		}
		if b, _ := os.ReadFile(outsideFile); string(b) != "orig" {
			t.Errorf("the file outside was changed through a hard link: %q", b)
		}
	}
	if err := h.WriteFile(context.Background(), "fine/ok.txt", []byte("ok"), 0o644); err != nil {
		t.Errorf("WriteFile inside the workspace: %v", err)
	}
}

// Attack: reach a host listener with the network off; the control run with
// the network allowed must reach it (so the check can fail).
func TestNetworkOff(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" {
			t.Fatal("python3 missing and ZSANDBOX_MUST_ENFORCE=1")
		}
		t.Skip("python3 missing")
	}
	f := newFixture(t)
	port, seen := conformance.Listen(t, "127.0.0.1:0")
	connect := contexts.Cmd{Args: []string{"python3", "-c", fmt.Sprintf(`import socket; socket.create_connection(("127.0.0.1", %d), 5).close(); print("connected")`, port)}}
	r, _ := f.handle(t, contexts.Options{}).Exec(context.Background(), connect)
	if r.ExitCode == 0 || seen() != 0 {
		t.Fatalf("network deny: exit %d, listener saw %d connections", r.ExitCode, seen())
	}
	r, _ = f.handle(t, contexts.Options{Network: contexts.NetworkAllow}).Exec(context.Background(), connect)
	if r.ExitCode != 0 || seen() != 1 {
		t.Fatalf("network allow (control): exit %d %q, listener saw %d", r.ExitCode, r.Stderr, seen())
	}
}

// Fail closed: with no trustworthy zsandbox nothing runs, every command
// gets exit 127 and a message.
func TestNoZsandboxNothingRuns(t *testing.T) {
	f := newFixture(t)
	// A fake zsandbox planted in the workspace (a writable root), found
	// first on PATH: it must never run, and the real one is not used
	// behind its back either.
	fake := filepath.Join(f.work, "zsandbox")
	os.WriteFile(fake, []byte("#!/bin/sh\ntouch \"$HOME/fake-ran\"\nexec \"$@\"\n"), 0o755)
	t.Setenv("PATH", f.work+":/usr/bin:/bin")
	cases := map[string]contexts.Options{
		"missing":         {Zsandbox: filepath.Join(f.outside, "no-zsandbox")},
		"planted":         {Zsandbox: fake},
		"planted on PATH": {Zsandbox: ""},
	}
	for name, opts := range cases {
		t.Run(name, func(t *testing.T) {
			c, _ := New(opts)
			h, err := c.Spawn(context.Background(), contexts.SpawnConfig{Cwd: f.work})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Destroy(context.Background())
			marker := filepath.Join(f.work, "ran-"+strings.ReplaceAll(name, " ", "-"))
			r, err := h.Exec(context.Background(), contexts.Cmd{Args: []string{"touch", marker}})
			if !errors.Is(err, contexts.ErrUnavailable) || r.ExitCode != 127 || !strings.Contains(string(r.Stderr), "zsandbox") {
				t.Errorf("Exec = %d %q, %v; want 127 and ErrUnavailable", r.ExitCode, r.Stderr, err)
			}
			if _, err := h.Start(context.Background(), contexts.Cmd{Args: []string{"touch", marker}}); !errors.Is(err, contexts.ErrUnavailable) {
				t.Errorf("Start = %v, want ErrUnavailable", err)
			}
			if _, err := h.OpenTerminal(context.Background(), contexts.TerminalConfig{}); !errors.Is(err, contexts.ErrUnavailable) {
				t.Errorf("OpenTerminal = %v, want ErrUnavailable", err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the command ran without a sandbox")
			}
		})
	}
	if _, err := os.Stat(filepath.Join(f.home, "fake-ran")); err == nil {
		t.Errorf("the planted zsandbox ran")
	}
}

// Attack: env entries and pass-env names that look like zsandbox flags
// (what a model might put in a tool call) must not widen the sandbox.
func TestFlagLookingValuesStayValues(t *testing.T) {
	f := newFixture(t)
	h := f.handle(t, contexts.Options{})
	target := filepath.Join(f.outside, "widened")
	r, err := h.Exec(context.Background(), contexts.Cmd{
		Args: []string{"sh", "-c", `echo ran; echo x > "$1"`, "sh", target},
		Env:  []string{"--writable=/", "X=--network=allow", "Y=--isolation=off"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Stdout), "ran") {
		t.Fatalf("the command did not run: %q %q", r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("a flag-looking env entry widened the sandbox: %s written", target)
	}
	// A pass-env name that is no variable name is refused outright.
	_, err = h.Exec(context.Background(), contexts.Cmd{Args: []string{"touch", target}, PassEnv: []string{"--writable=/"}})
	if !errors.Is(err, contexts.ErrUsage) {
		t.Errorf("pass-env %q = %v, want ErrUsage", "--writable=/", err)
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("a flag-looking pass-env name widened the sandbox: %s written", target)
	}
}

// Attack: read the host's /proc through the context's own file calls. The
// command cannot see zctx's environment (zsandbox drops credential
// variables and gives it its own /proc), but ReadFile runs in zctx's
// process: /proc/self/environ (also as /proc/self/root/proc/self/environ
// and through a symlink the command plants) would hand the token back.
func TestHostProcUnreadable(t *testing.T) {
	f := newFixture(t)
	const token = "ghp_zctxProcLeak0123456789abcdefABCDEF0123"
	t.Setenv("GITHUB_TOKEN", token)
	h := f.handle(t, contexts.Options{})
	r, err := h.Exec(context.Background(), contexts.Cmd{Args: []string{"sh", "-c", `ln -s /proc/self/environ env; echo "[$GITHUB_TOKEN]"`}})
	if err != nil || strings.Contains(string(r.Stdout), token) {
		t.Fatalf("the command got the token or did not run: %v %q", err, r.Stdout)
	}
	for _, p := range []string{"/proc/self/environ", "/proc/self/root/proc/self/environ", "env",
		fmt.Sprintf("/proc/%d/environ", os.Getpid())} {
		b, err := h.ReadFile(context.Background(), p)
		// The kernel's copy is the environment this test started with
		// (Setenv does not reach it): any byte of it is the leak.
		if !errors.Is(err, contexts.ErrDenied) || len(b) > 0 {
			t.Errorf("ReadFile(%q) = %d bytes, %v; want ErrDenied", p, len(b), err)
		}
	}
	if _, err := h.ListFiles(context.Background(), "/proc/self"); !errors.Is(err, contexts.ErrDenied) {
		t.Errorf("ListFiles(/proc/self) = %v, want ErrDenied", err)
	}
}

// Attack: plant a zsandbox where a later command's lookup finds it. The
// first command's cwd holds a PATH directory (a project's node_modules/.bin
// on PATH, or zctx's own directory), so zsandbox is refused there for that
// command; but a later command with a cwd below it, for which that
// directory is no writable root, would run the planted one, unsandboxed.
// Every lookup place is protected in every command (and in WriteFile).
func TestPlantedZsandboxForALaterCommand(t *testing.T) {
	f := newFixture(t)
	// Not under /tmp, which is a writable root of every command.
	f.work = filepath.Join(filepath.Dir(f.outside), "work")
	bin, sub := filepath.Join(f.work, "bin"), filepath.Join(f.work, "sub")
	for _, d := range []string{bin, sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	marker := filepath.Join(f.outside, "fake-ran")
	fake := fmt.Sprintf("#!/bin/sh\ntouch %q\nwhile [ \"$1\" != -- ]; do shift; done; shift; exec \"$@\"\n", marker)
	planter := f.handle(t, contexts.Options{})
	r, err := planter.Exec(context.Background(), contexts.Cmd{Args: []string{"sh", "-c", `printf '%s' "$1" > bin/zsandbox; chmod 755 bin/zsandbox; echo ran`, "sh", fake}})
	if err != nil || !strings.Contains(string(r.Stdout), "ran") {
		t.Fatalf("the planting command did not run: %v %q %q", err, r.Stdout, r.Stderr)
	}
	if err := planter.WriteFile(context.Background(), "bin/zsandbox", []byte(fake), 0o755); !errors.Is(err, contexts.ErrDenied) {
		t.Errorf("WriteFile(bin/zsandbox) = %v, want ErrDenied", err)
	}
	c, _ := New(contexts.Options{}) // no --zsandbox: the lookup runs
	later, err := c.Spawn(context.Background(), contexts.SpawnConfig{Cwd: sub})
	if err != nil {
		t.Fatal(err)
	}
	defer later.Destroy(context.Background())
	r, _ = later.Exec(context.Background(), contexts.Cmd{Args: []string{"touch", filepath.Join(f.outside, "written")}})
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the planted zsandbox ran (exit %d %q)", r.ExitCode, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(f.outside, "written")); err == nil {
		t.Errorf("the later command wrote outside its roots")
	}
}
