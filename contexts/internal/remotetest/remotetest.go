//go:build linux

// Package remotetest is what the tests of the remote contexts (e2b,
// daytona) share: the docker runner their replicas run sandboxes in, the
// pinned SDK oracles under contexts/testdata/oracle, and small helpers.
// ZSANDBOX_MUST_ORACLE=1 turns a missing SDK from a skip into a failure.
package remotetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/docker"
	"github.com/zsandbox/zsandbox/contexts/internal/dockertest"
)

// OracleDir holds the pinned SDKs, seen from a provider's package.
const OracleDir = "../testdata/oracle"

// Runner is the docker context on the test's private dockerd: each
// replica sandbox is one of its containers. It skips without a daemon.
func Runner(t *testing.T, d *dockertest.Daemon, skip string) contexts.Context {
	t.Helper()
	if d == nil {
		t.Skip(skip)
	}
	c, err := docker.New(contexts.Options{Host: d.Host, Image: dockertest.Image})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Ctx is a context for one test, bounded at a minute.
func Ctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// Exec runs shell on h and fails the test on a context error.
func Exec(t *testing.T, h contexts.Handle, shell string) contexts.Result {
	t.Helper()
	r, err := h.Exec(Ctx(t), contexts.Cmd{Shell: shell})
	if err != nil {
		t.Fatalf("Exec(%q): %v", shell, err)
	}
	return r
}

// Spawn spawns a handle and fails the test on an error.
func Spawn(t *testing.T, c contexts.Context, cfg contexts.SpawnConfig) contexts.Handle {
	t.Helper()
	h, err := c.Spawn(Ctx(t), cfg)
	if err != nil {
		t.Fatalf("Spawn: %v (hint: %s)", err, contexts.Hint(err))
	}
	return h
}

// NeedOracle skips (or fails, with ZSANDBOX_MUST_ORACLE=1) unless the
// npm package pkg is installed in OracleDir.
func NeedOracle(t *testing.T, pkg string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(OracleDir, "node_modules", pkg, "package.json")); err != nil {
		if os.Getenv("ZSANDBOX_MUST_ORACLE") == "1" {
			t.Fatalf("the pinned %s is not installed (%v) and ZSANDBOX_MUST_ORACLE=1", pkg, err)
		}
		t.Skipf("the pinned %s is not installed: cd contexts/testdata/oracle && npm ci", pkg)
	}
}

// Node runs an oracle script with env added and returns its stdout.
func Node(t *testing.T, script string, env ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(Ctx(t), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = OracleDir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("node %s: %v\n%s", script, err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// WithSetup wraps a runner so that every sandbox it spawns first runs
// shell (as root): a replica's image with a tool planted in it.
func WithSetup(c contexts.Context, shell string) contexts.Context { return setupRunner{c, shell} }

type setupRunner struct {
	contexts.Context
	shell string
}

func (s setupRunner) Spawn(ctx context.Context, cfg contexts.SpawnConfig) (contexts.Handle, error) {
	h, err := s.Context.Spawn(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if r, err := h.Exec(ctx, contexts.Cmd{Shell: s.shell}); err != nil || r.ExitCode != 0 {
		h.Destroy(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("setup %q: %v %d %s", s.shell, err, r.ExitCode, r.Stderr)
	}
	return h, nil
}

// FakeGit plants a git that records, in /git-calls, its arguments, the
// config key git would get from its environment and the sha256 of the
// value (never the value), and makes clone's target a repository. With
// FAKE_GIT_FAIL set, clone fails echoing the header, as GIT_CURL_VERBOSE
// would print it.
const FakeGit = `cat > /bin/git <<'G'
#!/bin/sh
{ printf 'argv:'; printf ' [%s]' "$@"; echo
  echo "key:${GIT_CONFIG_KEY_0:-}"
  echo "value-sha:$(printf %s "${GIT_CONFIG_VALUE_0:-}" | sha256sum | cut -d' ' -f1)"
  echo "prompt:${GIT_TERMINAL_PROMPT:-}"; } >> /git-calls
if [ "$1" = clone ]; then
  if [ -n "$FAKE_GIT_FAIL" ]; then echo "fatal: > $GIT_CONFIG_VALUE_0" >&2; exit 128; fi
  for last; do :; done
  mkdir -p "$last/.git" && echo '[core]' > "$last/.git/config"
fi
G
chmod 755 /bin/git`
