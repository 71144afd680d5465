// Package e2e attacks the real sandbox: every test runs bin/zsandbox with
// real bwrap, seccomp and Landlock, tries to get around a protection, and
// checks the effect from outside (the host file is unchanged, the listener
// saw nothing, the secret is not in the output). When the tests run as root
// they run every case twice: as root and as an unprivileged user.
// Identities, building, running and listeners are internal/harness's, the
// attack program internal/probe's; this file keeps only the e2e fixture
// (env: a home with credentials, a project, a TMPDIR) and each.
package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/internal/harness"
	"github.com/zsandbox/zsandbox/internal/probe"
)

var (
	zsandbox  string // the binary under test
	attackBin string // the attack program: this test binary, by another name
)

// attackName is the name by which this test binary is the attack program
// (internal/probe's Attack) the tests run inside the sandbox: a name, not
// an environment variable, survives every way a test starts it.
const attackName = "attack"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == attackName {
		os.Exit(probe.Attack(os.Args[1:]))
	}
	err := setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		if os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" {
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "e2e: skipping the real-sandbox tests (set ZSANDBOX_MUST_ENFORCE=1 to make this a failure)")
		os.Exit(0)
	}
	code := m.Run()
	harness.Cleanup()
	os.Exit(code)
}

func setup() error {
	if _, err := exec.LookPath("bwrap"); err != nil {
		return fmt.Errorf("bwrap not installed: %w", err)
	}
	self, err := harness.Copy()
	if err != nil {
		return err
	}
	attackBin = filepath.Join(filepath.Dir(self), attackName)
	if err := os.Link(self, attackBin); err != nil {
		return err
	}
	zsandbox, err = buildZsandbox("zsandbox", "1")
	return err
}

// buildZsandbox builds the binary under test with CGO_ENABLED=cgo, as
// name beside attackBin.
func buildZsandbox(name, cgo string) (string, error) {
	return harness.Build(name, []string{"CGO_ENABLED=" + cgo}, "build", "-tags", "urfave_cli_no_docs,zsandbox_test", "..")
}

// env is one fixture: a home with credentials, a project (the cwd), a
// TMPDIR and an outside directory, all owned by the identity.
type env struct {
	t       *testing.T
	id      harness.Identity
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
	for _, id := range harness.Identities(t) {
		t.Run(id.Name, func(t *testing.T) { f(t, newEnv(t, id)) })
	}
}

func newEnv(t *testing.T, id harness.Identity) *env {
	t.Helper()
	base := harness.TempBase(t, harness.BaseParent(), "zsandbox-e2e-")
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
		return os.Lchown(p, e.id.UID, e.id.GID)
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// result is what one zsandbox run did.
type result = harness.Result

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
	return harness.Run(e.t, cmd)
}

func (e *env) command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(zsandbox, args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"HOME=" + e.home, "TMPDIR=" + e.tmp, "PATH=" + os.Getenv("PATH"),
		"ATTACK=" + attackBin, "LANG=C",
	}
	e.id.Own(cmd)
	return cmd
}

// mustFail asserts the command failed (a denial is an error the command
// sees, never a silent success).
func mustFail(t *testing.T, r result, what string) {
	t.Helper()
	if r.Code == 0 {
		t.Errorf("%s: succeeded inside the sandbox, want failure\n%s", what, r)
	}
}

func mustSucceed(t *testing.T, r result, what string) {
	t.Helper()
	if r.Code != 0 {
		t.Errorf("%s: failed, want success\n%s", what, r)
	}
}

func assertNoSecret(t *testing.T, e *env, r result, what string) {
	t.Helper()
	if strings.Contains(r.Stdout+r.Stderr, e.secret) {
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
