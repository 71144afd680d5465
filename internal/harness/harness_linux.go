//go:build linux

// Package harness is the one test harness of the real (kernel-enforced)
// tests of landlock/, alone/ and e2e/: who a test runs as (the caller and,
// as root, the unprivileged TestUser), a fixture directory owned by that
// identity, a copy of the test binary every identity can execute, the
// programs built for the tests beside it, and a runner that keeps exit
// status and output. Only tests import it.
package harness

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestUser is the unprivileged account the real tests use when run as root.
const TestUser = "zsandbox-test"

// RequireABI skips a real test when the kernel's Landlock ABI (have) is
// below min, unless ZSANDBOX_MUST_ENFORCE=1 makes that a failure (CI).
func RequireABI(t testing.TB, have, min int) int {
	t.Helper()
	if have < min {
		if os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" {
			t.Fatalf("kernel Landlock ABI %d, this test needs %d", have, min)
		}
		t.Skipf("kernel Landlock ABI %d, this test needs %d", have, min)
	}
	return have
}

// Identity is who a child runs as.
type Identity struct {
	Name     string
	UID, GID int
}

// Identities are the current user and, when that is root, TestUser too
// (created when missing).
func Identities(t *testing.T) []Identity {
	t.Helper()
	self := Identity{Name: "self", UID: os.Geteuid(), GID: os.Getegid()}
	if self.UID != 0 {
		return []Identity{self}
	}
	u, err := user.Lookup(TestUser)
	if err != nil {
		out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/bin/sh", TestUser).CombinedOutput()
		if err != nil {
			t.Fatalf("useradd %s: %v: %s", TestUser, err, out)
		}
		if u, err = user.Lookup(TestUser); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return []Identity{{Name: "root", UID: 0, GID: 0}, {Name: "user", UID: uid, GID: gid}}
}

// Each runs f as a subtest per identity.
func Each(t *testing.T, f func(t *testing.T, id Identity)) {
	for _, id := range Identities(t) {
		t.Run(id.Name, func(t *testing.T) { f(t, id) })
	}
}

// BaseParent is where fixtures live: /var/lib when root (so the
// unprivileged user can reach them), else the user's cache directory;
// never under /tmp or /var/tmp, which are writable roots by default and
// would make "outside" paths writable.
func BaseParent() string {
	if os.Geteuid() == 0 {
		return "/var/lib"
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return os.TempDir()
	}
	os.MkdirAll(d, 0o755)
	return d
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// Binary is a copy of this test binary that every identity can execute
// (go test's own copy lives in a root-only directory). TestMain calls
// Cleanup when the tests are done.
func Binary(t *testing.T) string {
	t.Helper()
	p, err := Copy()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Copy is Binary for TestMain, which has no t: the copy's path, or why
// there is none.
func Copy() (string, error) {
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp(BaseParent(), "zsandbox-test-bin-")
		if binErr != nil {
			return
		}
		os.Chmod(binDir, 0o755)
		binPath = filepath.Join(binDir, filepath.Base(os.Args[0]))
		binErr = CopyExecutable(binPath)
	})
	return binPath, binErr
}

// Dir is the directory Binary copies into ("" before the first copy):
// other helper programs built for the tests go there too.
func Dir(t *testing.T) string { return filepath.Dir(Binary(t)) }

// Cleanup removes Binary's copy.
func Cleanup() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

// CopyExecutable copies this test binary to dst, executable by all.
func CopyExecutable(dst string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	src, err := os.Open(self)
	if err != nil {
		return err
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Fixture is a base directory owned by the identity: Root is the writable
// root, Outside a directory the identity may write by file permissions,
// so an EACCES there comes from the sandbox. Outside/file holds
// "original\n".
type Fixture struct {
	T       *testing.T
	ID      Identity
	Base    string
	Root    string
	Outside string
}

// TempBase makes a fresh directory in parent, named after prefix, that
// every identity can enter, with no symlink in its path; it is removed
// when t ends.
func TempBase(t *testing.T, parent, prefix string) string {
	t.Helper()
	base, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		t.Fatal(err)
	}
	base, _ = filepath.EvalSymlinks(base)
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	return base
}

// NewFixture makes a fixture for id, removed when t ends.
func NewFixture(t *testing.T, id Identity) *Fixture {
	t.Helper()
	base := TempBase(t, BaseParent(), "zsandbox-landlock-")
	f := &Fixture{T: t, ID: id, Base: base, Root: filepath.Join(base, "root"), Outside: filepath.Join(base, "outside")}
	for _, d := range []string{f.Root, f.Outside} {
		f.Mkdir(d)
	}
	f.Write(filepath.Join(f.Outside, "file"), "original\n")
	return f
}

// Mkdir makes d (and its parents), owned by the identity.
func (f *Fixture) Mkdir(d string) {
	f.T.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		f.T.Fatal(err)
	}
	f.Chown()
}

// Write writes s to p, owned by the identity.
func (f *Fixture) Write(p, s string) {
	f.T.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		f.T.Fatal(err)
	}
	f.Chown()
}

// Chown gives everything under Base to the identity.
func (f *Fixture) Chown() {
	f.T.Helper()
	filepath.Walk(f.Base, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			os.Lchown(p, f.ID.UID, f.ID.GID)
		}
		return nil
	})
}

// Command runs path as the identity in Base, with env added to a minimal
// environment.
func (f *Fixture) Command(path string, args []string, env ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Dir = f.Base
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + f.Base}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	f.ID.Own(cmd)
	return cmd
}

// Own makes cmd run as the identity (nothing to change for the caller
// itself).
func (id Identity) Own(cmd *exec.Cmd) {
	if id.UID == os.Geteuid() {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(id.UID), Gid: uint32(id.GID)}
}

// Result is what a child did; Code is 128+N for a child killed by signal N.
type Result struct {
	Code           int
	Stdout, Stderr string
}

func (r Result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
}

// Run runs cmd and keeps what it did; a child that cannot start fails t.
func Run(t *testing.T, cmd *exec.Cmd) Result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String()}
	switch e := err.(type) {
	case nil:
	case *exec.ExitError:
		r.Code = e.ExitCode()
		if ws, ok := e.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.Code = 128 + int(ws.Signal())
		}
	default:
		t.Fatalf("running %q: %v", cmd.Args, err)
	}
	return r
}

// MustNotExist fails t when p exists on the host.
func MustNotExist(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); err == nil {
		t.Errorf("%s exists on the host, want it absent", p)
	}
}

// MustContain fails t unless p holds exactly want.
func MustContain(t *testing.T, p, want string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil || string(b) != want {
		t.Errorf("%s = %q, %v; want %q", p, b, err, want)
	}
}

// Fatalf is a helper child's fatal error: the message on stderr, exit 3.
func Fatalf(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "helper: "+format+"\n", args...)
	return 3
}

var (
	builtMu sync.Mutex
	built   = map[string]builtBinary{}
)

type builtBinary struct {
	path string
	err  error
}

// Build runs `go ARGS[0] -o DIR/name ARGS[1:]...` once per name, with env added to
// the environment, into the directory of Binary's copy, where every
// identity can run it, and returns the path (or the build's error, each
// time it is asked). It needs no t, so TestMain can build too.
func Build(name string, env []string, args ...string) (string, error) {
	self, err := Copy()
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(self)
	builtMu.Lock()
	defer builtMu.Unlock()
	if b, ok := built[name]; ok {
		return b.path, b.err
	}
	b := builtBinary{path: filepath.Join(dir, name)}
	cmd := exec.Command("go", append([]string{args[0], "-o", b.path}, args[1:]...)...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.err = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	built[name] = b
	return b.path, b.err
}
