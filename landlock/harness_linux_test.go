package landlock

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

// The real tests re-execute the test binary: as stage 2 (the first
// argument is Stage2Arg, exactly as zsandbox's main will), or as a helper
// named by helperEnv that restricts itself and reports what it could do.
const helperEnv = "ZSANDBOX_LANDLOCK_HELPER"

// testUser is the unprivileged account the real tests use when run as root.
const testUser = "zsandbox-test"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Stage2Arg {
		Stage2(os.Args[2:])
	}
	if h := os.Getenv(helperEnv); h != "" {
		os.Exit(runHelper(h, os.Args[1:]))
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// requireLandlock skips a real test on a kernel without Landlock, unless
// ZSANDBOX_MUST_ENFORCE=1 makes that a failure (CI).
func requireLandlock(t testing.TB, minABI int) int {
	t.Helper()
	abi := ABI()
	if abi < minABI {
		if os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" {
			t.Fatalf("kernel Landlock ABI %d, this test needs %d", abi, minABI)
		}
		t.Skipf("kernel Landlock ABI %d, this test needs %d", abi, minABI)
	}
	return abi
}

// identity is who the child runs as.
type identity struct {
	name     string
	uid, gid int
}

// identities are the current user and, when that is root, testUser too.
func identities(t *testing.T) []identity {
	t.Helper()
	self := identity{name: "self", uid: os.Geteuid(), gid: os.Getegid()}
	if self.uid != 0 {
		return []identity{self}
	}
	u, err := user.Lookup(testUser)
	if err != nil {
		out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/bin/sh", testUser).CombinedOutput()
		if err != nil {
			t.Fatalf("useradd %s: %v: %s", testUser, err, out)
		}
		if u, err = user.Lookup(testUser); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return []identity{{name: "root", uid: 0, gid: 0}, {name: "user", uid: uid, gid: gid}}
}

// eachIdentity runs f as a subtest per identity.
func eachIdentity(t *testing.T, f func(t *testing.T, id identity)) {
	for _, id := range identities(t) {
		t.Run(id.name, func(t *testing.T) { f(t, id) })
	}
}

// baseParent is where fixtures live: /var/lib when root (so the
// unprivileged user can reach them, and never under /tmp).
func baseParent() string {
	if os.Geteuid() == 0 {
		return "/var/lib"
	}
	return os.TempDir()
}

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// testBinary is a copy of this test binary that every identity can execute
// (go test's own copy lives in a root-only directory).
func testBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp(baseParent(), "zsandbox-landlock-bin-")
		if binErr != nil {
			return
		}
		os.Chmod(binDir, 0o755)
		binPath = filepath.Join(binDir, "landlock.test")
		binErr = copyExecutable(binPath)
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func copyExecutable(dst string) error {
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

// fixture is a base directory owned by the identity: root/ is the writable
// root, outside/ is a directory the identity may write by file permissions,
// so an EACCES there comes from Landlock.
type fixture struct {
	t       *testing.T
	id      identity
	base    string
	root    string
	outside string
}

func newFixture(t *testing.T, id identity) *fixture {
	t.Helper()
	base, err := os.MkdirTemp(baseParent(), "zsandbox-landlock-")
	if err != nil {
		t.Fatal(err)
	}
	base, _ = filepath.EvalSymlinks(base)
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	f := &fixture{t: t, id: id, base: base, root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{f.root, f.outside} {
		f.mkdir(d)
	}
	f.write(filepath.Join(f.outside, "file"), "original\n")
	return f
}

func (f *fixture) mkdir(d string) {
	f.t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		f.t.Fatal(err)
	}
	f.chown()
}

func (f *fixture) write(p, s string) {
	f.t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.chown()
}

// chown gives everything under base to the identity.
func (f *fixture) chown() {
	f.t.Helper()
	filepath.Walk(f.base, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			os.Lchown(p, f.id.uid, f.id.gid)
		}
		return nil
	})
}

// command runs the test binary (or path) as the identity, with env added
// to a minimal environment.
func (f *fixture) command(path string, args []string, env ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Dir = f.base
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + f.base}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if f.id.uid != os.Geteuid() {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(f.id.uid), Gid: uint32(f.id.gid)}
	}
	return cmd
}

// result is what a child did.
type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	switch e := err.(type) {
	case nil:
	case *exec.ExitError:
		r.code = e.ExitCode()
		if ws, ok := e.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.code = 128 + int(ws.Signal())
		}
	default:
		t.Fatalf("running %q: %v", cmd.Args, err)
	}
	return r
}

// probe runs the helper as the identity: it enforces c, then tries each
// probe and prints "probe -> result" lines, parsed into a map.
func (f *fixture) probe(c Config, probes ...string) (abi int, got map[string]string) {
	f.t.Helper()
	r := run(f.t, f.command(testBinary(f.t), c.Command("", probes)[2:], helperEnv+"=probe"))
	if r.code != 0 {
		f.t.Fatalf("helper exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	got = map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		k, v, ok := strings.Cut(line, " -> ")
		if !ok {
			f.t.Fatalf("helper printed %q", line)
		}
		got[k] = v
	}
	abi, _ = strconv.Atoi(got["abi"])
	return abi, got
}

func mustNotExist(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); err == nil {
		t.Errorf("%s exists on the host, want it absent", p)
	}
}

func mustContain(t *testing.T, p, want string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil || string(b) != want {
		t.Errorf("%s = %q, %v; want %q", p, b, err, want)
	}
}

func fatalf(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "helper: "+format+"\n", args...)
	return 3
}

// hostABI is this kernel's Landlock ABI: what zsandbox's parent would plan
// the fence for.
var hostABI = ABI()
