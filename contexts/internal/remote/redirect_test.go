//go:build linux

package remote

import (
	"bytes"
	"context"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
)

// Attack: the repository's host answers with a redirect to another
// origin. git follows it and then sends every further request — with
// the extraheader, which it set up for the first origin — to the other
// one: the token went to a host it was never meant for. Real git (the
// clone script run by sh, as a sandbox runs it) against two real HTTPS
// servers, the second serving a real repository; the second may never
// see the Authorization header.
func TestCloneTokenNotSentPastARedirect(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is needed (scripts/ci-linux.sh installs it)")
	}
	root := t.TempDir()
	run := func(args ...string) {
		if out, err := exec.Command(gitBin, args...).CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "--bare", "-b", "main", filepath.Join(root, "r.git"))
	run("init", "-q", "-b", "main", filepath.Join(root, "w"))
	run("-C", filepath.Join(root, "w"), "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x")
	run("-C", filepath.Join(root, "w"), "push", "-q", filepath.Join(root, "r.git"), "main")

	var mu sync.Mutex
	seen := map[string][]string{} // server -> Authorization headers
	record := func(name string, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[name] = append(seen[name], r.Header.Get("Authorization"))
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}
	other := httptest.NewTLSServer(record("other", &cgi.Handler{Path: gitBin, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}))
	defer other.Close()
	repo := httptest.NewTLSServer(record("repo", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusMovedPermanently)
	})))
	defer repo.Close()
	ca := filepath.Join(root, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: repo.Certificate().Raw}), 0o600)

	execute := func(ctx context.Context, cmd contexts.Cmd) (contexts.Result, error) {
		c := exec.CommandContext(ctx, cmd.Args[0], cmd.Args[1:]...)
		var out, errb bytes.Buffer
		c.Stdin, c.Stdout, c.Stderr, c.Dir = cmd.Stdin, &out, &errb, root
		c.Env = append(os.Environ(), "GIT_SSL_CAINFO="+ca, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
		err := c.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return contexts.Result{Stdout: out.Bytes(), Stderr: errb.Bytes(), ExitCode: ee.ExitCode()}, nil
		}
		return contexts.Result{Stdout: out.Bytes(), Stderr: errb.Bytes()}, err
	}
	const token = "ghp_RedirectToken0123456789abcdef"
	c := Clone{URL: repo.URL + "/r.git", Dir: "clone", Token: token}
	_, err = c.Run(context.Background(), "e2b", root, Lookup{Getenv: func(string) string { return "" }}, execute)
	mu.Lock()
	defer mu.Unlock()
	if len(seen["repo"]) == 0 || seen["repo"][0] != Authorization(token)[len("Authorization: "):] {
		t.Fatalf("the repository's host did not get the token: %q (clone: %v)", seen["repo"], err)
	}
	for _, h := range seen["other"] {
		if h != "" {
			t.Errorf("the host redirected to got the token's header (clone: %v)", err)
			break
		}
	}
	if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(contexts.Hint(err), "redirect") {
		t.Errorf("the clone: %v (hint %q); want an error without the token, its hint naming the redirect", err, contexts.Hint(err))
	}
}
