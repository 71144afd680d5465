//go:build linux

package remotetest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/remote"
)

// CloneTarget is a remote context under the clone test: Spawn spawns a
// handle (with FakeGit planted) that clones clone; Records lists what the
// service itself keeps that a command could see (Daytona's session
// command lines); Leftovers lists the sandboxes that still exist.
type CloneTarget struct {
	Spawn     func(t *testing.T, clone *remote.Clone, env []string) (contexts.Handle, error)
	Records   func() []string
	Leftovers func() []string
}

// CloneToken is the test of the seeds' clone: the token reaches git (as
// the extraheader's value, checked by its hash), is left in the sandbox
// only with StoreToken (then in ~/.git-credentials, 0600, with the store
// helper on), and is in no error, handle State, service record or other
// file of the sandbox, searched from the root.
func CloneToken(t *testing.T, tg CloneTarget) {
	const token = "ghp_CloneToken0123456789abcdefABCDEFxyz"
	b64 := base64.StdEncoding.EncodeToString([]byte(remote.GitUser + ":" + token))
	sum := sha256.Sum256([]byte(remote.Authorization(token)))
	for _, store := range []bool{false, true} {
		h, err := tg.Spawn(t, &remote.Clone{URL: "https://github.com/acme/app.git", Token: token, StoreToken: store}, nil)
		if err != nil {
			t.Fatalf("store=%v: spawn with a clone: %v", store, err)
		}
		if got := h.State().Cwd; !strings.HasSuffix(got, "/app") {
			t.Errorf("store=%v: the handle's cwd is %q, want the clone", store, got)
		}
		calls := string(Exec(t, h, "cat /git-calls").Stdout)
		for _, want := range []string{"argv: [clone] [--] [https://github.com/acme/app.git] [" + h.State().Cwd + "]",
			"key:http.https://github.com/.extraheader", "value-sha:" + hex.EncodeToString(sum[:]), "prompt:0"} {
			if !strings.Contains(calls, want) {
				t.Errorf("store=%v: git was not called with %q:\n%s", store, want, calls)
			}
		}
		// The search gets each secret in two halves, so that its own
		// command line (which Daytona records) does not hold it.
		found, err := h.Exec(Ctx(t), contexts.Cmd{Args: []string{"/bin/sh", "-c",
			`find / \( -path /proc -o -path /sys -o -path /dev \) -prune -o -type f -print0 | xargs -0 grep -l -F -e "$0$1" -e "$2$3" 2>/dev/null; true`,
			token[:9], token[9:], b64[:9], b64[9:]}})
		if err != nil {
			t.Fatal(err)
		}
		files := strings.Fields(string(found.Stdout))
		switch {
		case !store && len(files) != 0:
			t.Errorf("without StoreToken the token is in the sandbox: %q", files)
		case store && (len(files) != 1 || !strings.HasSuffix(files[0], "/.git-credentials")):
			t.Errorf("with StoreToken: files with the token %q, want only ~/.git-credentials", files)
		case store:
			if r := Exec(t, h, "stat -c %a ~/.git-credentials; grep -c -F 'argv: [config] [--global] [credential.helper] [store]' /git-calls"); string(r.Stdout) != "600\n1\n" {
				t.Errorf("~/.git-credentials mode and the store helper: %q, want 600 and one git config call", r.Stdout)
			}
		}
		st, _ := json.Marshal(h.State())
		records := append([]string{string(st)}, tg.Records()...)
		for _, r := range records {
			if strings.Contains(r, token) || strings.Contains(r, b64) {
				t.Errorf("store=%v: the token is in the handle State or a record the service keeps: %q", store, r)
			}
		}
		h.Destroy(Ctx(t))
	}
	// A clone that fails, with git printing the header: the error
	// names the failure, never the token, and the sandbox is removed.
	_, err := tg.Spawn(t, &remote.Clone{URL: "https://github.com/acme/app.git", Token: token}, []string{"FAKE_GIT_FAIL=1"})
	if err == nil {
		t.Fatal("a failing clone did not fail the spawn")
	}
	msg := err.Error() + " " + contexts.Hint(err)
	if !strings.Contains(msg, "exited 128") || strings.Contains(msg, token) || strings.Contains(msg, b64) {
		t.Errorf("failed clone: %q; want exit 128 without the token", msg)
	}
	if left := tg.Leftovers(); len(left) != 0 {
		t.Errorf("a sandbox created for a failed clone is left: %q", left)
	}
}
