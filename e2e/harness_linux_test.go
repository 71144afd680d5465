// Package e2e attacks the real sandbox: every test runs bin/zsandbox with
// real bwrap, seccomp and Landlock, tries to get around a protection, and
// checks the effect from outside (the host file is unchanged, the listener
// saw nothing, the secret is not in the output). When the tests run as root
// they run every case twice: as root and as an unprivileged user.
package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// testUser is the unprivileged account the tests use when run as root;
// TestMain creates it if it is missing.
const testUser = "zsandbox-test"

var (
	zsandbox  string // the binary under test
	attackBin string // the attack helper
	toolDir   string // world-readable directory holding both
)

func TestMain(m *testing.M) {
	code, err := setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		if os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" {
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "e2e: skipping the real-sandbox tests (set ZSANDBOX_MUST_ENFORCE=1 to make this a failure)")
		os.Exit(0)
	}
	code = m.Run()
	os.RemoveAll(toolDir)
	os.Exit(code)
}

func setup() (int, error) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		return 0, fmt.Errorf("bwrap not installed: %w", err)
	}
	dir, err := os.MkdirTemp(baseParent(), "zsandbox-e2e-bin-")
	if err != nil {
		return 0, err
	}
	toolDir = dir
	if err := os.Chmod(dir, 0o755); err != nil {
		return 0, err
	}
	zsandbox = filepath.Join(dir, "zsandbox")
	attackBin = filepath.Join(dir, "attack")
	if err := goBuild(zsandbox, ".."); err != nil {
		return 0, err
	}
	if err := goBuild(attackBin, "./attack"); err != nil {
		return 0, err
	}
	if os.Geteuid() == 0 {
		return 0, ensureTestUser()
	}
	return 0, nil
}

func goBuild(out, pkg string) error { return goBuildCgo(out, pkg, "1") }

// goBuildCgo builds pkg with CGO_ENABLED=cgo.
func goBuildCgo(out, pkg, cgo string) error {
	cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs,zsandbox_test", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}

func ensureTestUser() error {
	if _, err := user.Lookup(testUser); err == nil {
		return nil
	}
	b, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/bin/sh", testUser).CombinedOutput()
	if err != nil {
		return fmt.Errorf("useradd %s: %v: %s", testUser, err, b)
	}
	return nil
}

// baseParent is where fixtures live: never under /tmp or /var/tmp, which are
// writable roots by default and would make "outside" paths writable.
func baseParent() string {
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

// identity is who runs zsandbox.
type identity struct {
	name     string
	uid, gid int
}

func identities(t *testing.T) []identity {
	self := identity{name: "self", uid: os.Geteuid(), gid: os.Getegid()}
	if self.uid != 0 {
		return []identity{self}
	}
	u, err := user.Lookup(testUser)
	if err != nil {
		t.Fatalf("unprivileged test user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return []identity{{name: "root", uid: 0, gid: 0}, {name: "user", uid: uid, gid: gid}}
}

// env is one fixture: a home with credentials, a project (the cwd), a
// TMPDIR and an outside directory, all owned by the identity.
type env struct {
	t       *testing.T
	id      identity
	base    string
	home    string
	proj    string
	tmp     string
	outside string
	secret  string
}

// each runs f once per identity, with a fresh fixture.
func each(t *testing.T, f func(t *testing.T, e *env)) {
	t.Helper()
	for _, id := range identities(t) {
		t.Run(id.name, func(t *testing.T) { f(t, newEnv(t, id)) })
	}
}

func newEnv(t *testing.T, id identity) *env {
	t.Helper()
	base := harness.TempBase(t, baseParent(), "zsandbox-e2e-")
	e := &env{t: t, id: id, base: base, secret: "ZS-SECRET-" + harness.RandHex(8)}
	e.home = filepath.Join(base, "home")
	e.proj = filepath.Join(e.home, "proj")
	e.tmp = filepath.Join(base, "tmpdir")
	e.outside = filepath.Join(base, "outside")
	for _, d := range []string{e.proj, e.tmp, e.outside} {
		e.mkdir(d)
	}
	e.write(filepath.Join(e.outside, "file"), "original\n")
	e.plantCredentials()
	e.chownAll()
	return e
}

// credentialFiles are one file per default hidden path, home-relative.
var credentialFiles = []string{
	".ssh/id_rsa", ".aws/credentials", ".gnupg/private-keys-v1.d/key", ".azure/accessTokens.json",
	".config/gcloud/credentials.db", ".kube/config", ".docker/config.json", ".netrc",
	".credentials.json", ".config/zsandbox/settings.json",
}

func (e *env) plantCredentials() {
	for _, f := range credentialFiles {
		p := filepath.Join(e.home, f)
		e.mkdir(filepath.Dir(p))
		e.write(p, e.secret+"\n")
	}
	// zsandbox reads its own settings: keep that one valid JSON.
	e.write(filepath.Join(e.home, ".config/zsandbox/settings.json"), `{"hide": ["/nonexistent/`+e.secret+`"]}`+"\n")
}

func (e *env) mkdir(d string) {
	e.t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) write(p, s string) {
	e.t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) chownAll() {
	e.t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	err := filepath.Walk(e.base, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, e.id.uid, e.id.gid)
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// result is what one zsandbox run did.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// run executes zsandbox with args as the identity, in the project dir.
func (e *env) run(args ...string) result {
	e.t.Helper()
	return e.runIn(e.proj, nil, args...)
}

// sh runs a shell script inside zsandbox exec with extra zsandbox flags.
func (e *env) sh(script string, flags ...string) result {
	e.t.Helper()
	args := append([]string{"exec"}, flags...)
	return e.run(append(args, "--", "sh", "-c", script)...)
}

func (e *env) runIn(dir string, stdin []byte, args ...string) result {
	e.t.Helper()
	cmd := e.command(dir, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	return e.collect(cmd)
}

// collect runs cmd (from e.command, perhaps adjusted) and returns what it did.
func (e *env) collect(cmd *exec.Cmd) result {
	e.t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			e.t.Fatalf("running zsandbox: %v", err)
		}
		code = ee.ExitCode()
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

func (e *env) command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(zsandbox, args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"HOME=" + e.home, "TMPDIR=" + e.tmp, "PATH=" + os.Getenv("PATH"),
		"ATTACK=" + attackBin, "LANG=C",
	}
	if e.id.uid != os.Geteuid() {
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Credential: &syscall.Credential{Uid: uint32(e.id.uid), Gid: uint32(e.id.gid)},
		}
	}
	return cmd
}

// mustFail asserts the command failed (a denial is an error the command
// sees, never a silent success).
func mustFail(t *testing.T, r result, what string) {
	t.Helper()
	if r.code == 0 {
		t.Errorf("%s: succeeded inside the sandbox, want failure\n%s", what, r)
	}
}

func mustSucceed(t *testing.T, r result, what string) {
	t.Helper()
	if r.code != 0 {
		t.Errorf("%s: failed, want success\n%s", what, r)
	}
}

func assertNoSecret(t *testing.T, e *env, r result, what string) {
	t.Helper()
	if strings.Contains(r.stdout+r.stderr, e.secret) {
		t.Errorf("%s: the secret leaked into the output\n%s", what, r)
	}
}

// waitFor polls cond until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}
