package policy

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/profiles"
)

// hiddenBy resolves a policy for host and maps each hidden path to its
// source.
func hiddenBy(t *testing.T, req Request, host Host) map[string]Hidden {
	t.Helper()
	p, err := Resolve(req, host)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Hidden{}
	for _, h := range p.Hidden {
		if _, dup := got[h.Path]; dup {
			t.Errorf("%s hidden twice", h.Path)
		}
		got[h.Path] = h
	}
	return got
}

// TestHiddenUnderAccountHome: with HOME pointing elsewhere, ssh (which
// reads the passwd home) would still find the real keys; every default is
// hidden under both homes.
func TestHiddenUnderAccountHome(t *testing.T) {
	f := newFixture(t)
	account := filepath.Join(f.base, "account")
	mustMkdir(t, filepath.Join(account, ".ssh"))
	host := f.host(f.proj)
	host.AccountHome = account
	got := hiddenBy(t, Request{}, host)
	for _, e := range profiles.Hidden() {
		rel, ok := strings.CutPrefix(e, "~/")
		if !ok {
			continue
		}
		if h, ok := got[filepath.Join(f.home, rel)]; !ok || h.Source != "" {
			t.Errorf("%s under $HOME: %+v, listed %v", rel, h, ok)
		}
		if h, ok := got[filepath.Join(account, rel)]; !ok || h.Source != SourceAccountHome {
			t.Errorf("%s under the account home: %+v, listed %v", rel, h, ok)
		}
	}
	if h := got[filepath.Join(account, ".ssh")]; !h.Exists || !h.IsDir {
		t.Errorf("account ~/.ssh = %+v, want an existing hidden directory", h)
	}
	host.AccountHome = f.home
	for path, h := range hiddenBy(t, Request{}, host) {
		if h.Source == SourceAccountHome {
			t.Errorf("%s listed as the account home's although it is $HOME", path)
		}
	}
}

// TestHiddenRelocations: a store moved by a variable is hidden where the
// variable says; odd values hide nothing odd and never fail the run.
func TestHiddenRelocations(t *testing.T) {
	f := newFixture(t)
	b := f.base
	env := []string{
		"XDG_CONFIG_HOME=" + b + "/xdg", "XDG_DATA_HOME=" + b + "/data", "GNUPGHOME=" + b + "/gpg",
		"DOCKER_CONFIG=" + b + "/docker", "CARGO_HOME=" + b + "/cargo",
		"KUBECONFIG=" + b + "/k1::" + b + "/k2", "AWS_SHARED_CREDENTIALS_FILE=" + b + "/awscred",
		"AWS_CONFIG_FILE=" + b + "/awsconf", "GOOGLE_APPLICATION_CREDENTIALS=" + b + "/sa.json",
		"AZURE_CONFIG_DIR=" + b + "/az", "CLOUDSDK_CONFIG=" + b + "/gcloud", "NETRC=" + b + "/netrc",
		"GH_CONFIG_DIR=" + b + "/gh", "NPM_CONFIG_USERCONFIG=" + b + "/npmrc", "HISTFILE=rel/hist",
		"PGPASSFILE=~/pg", "CODEX_HOME=" + b + "/codex",
		// Odd values: each must hide nothing and fail nothing.
		"REGISTRY_AUTH_FILE=/", "PSQL_HISTORY=/dev/fd/63", "RCLONE_CONFIG=~nobody/x",
		"MYSQL_HISTFILE=/proc/self/fd/3", "PYTHON_HISTORY=",
	}
	host := f.host(f.proj)
	host.Env = append(host.Env, env...)
	got := hiddenBy(t, Request{}, host)
	want := map[string]Source{
		b + "/xdg/gh": "$XDG_CONFIG_HOME", b + "/xdg/git/credentials": "$XDG_CONFIG_HOME",
		b + "/xdg/zsandbox": "$XDG_CONFIG_HOME", b + "/xdg/google-chrome": "$XDG_CONFIG_HOME",
		b + "/data/keyrings": "$XDG_DATA_HOME", b + "/data/fish/fish_history": "$XDG_DATA_HOME",
		b + "/gpg": "$GNUPGHOME", b + "/docker/config.json": "$DOCKER_CONFIG",
		b + "/cargo/credentials": "$CARGO_HOME", b + "/cargo/credentials.toml": "$CARGO_HOME",
		b + "/k1": "$KUBECONFIG", b + "/k2": "$KUBECONFIG",
		b + "/awscred": "$AWS_SHARED_CREDENTIALS_FILE", b + "/awsconf": "$AWS_CONFIG_FILE",
		b + "/sa.json": "$GOOGLE_APPLICATION_CREDENTIALS", b + "/az": "$AZURE_CONFIG_DIR",
		b + "/gcloud": "$CLOUDSDK_CONFIG", b + "/netrc": "$NETRC", b + "/gh": "$GH_CONFIG_DIR",
		b + "/npmrc": "$NPM_CONFIG_USERCONFIG", f.proj + "/rel/hist": "$HISTFILE",
		f.home + "/pg": "$PGPASSFILE", b + "/codex/auth.json": "$CODEX_HOME",
	}
	for path, src := range want {
		if h, ok := got[path]; !ok || h.Source != src {
			t.Errorf("%s: %+v (listed %v), want hidden from %s", path, h, ok, src)
		}
	}
	for path, h := range got {
		switch {
		case path == "/" || kernelTree(path) != "":
			t.Errorf("hidden %s (from %s): a kernel tree or the root", path, h.Source)
		case h.Source == "$REGISTRY_AUTH_FILE" || h.Source == "$RCLONE_CONFIG" || h.Source == "$PYTHON_HISTORY":
			t.Errorf("hidden %s from an odd value of %s", path, h.Source)
		}
	}
}

// TestHiddenRelocationAboveCwd: GNUPGHOME naming a parent of the cwd hides
// the cwd; the run is refused with the variable named, never run with the
// store readable.
func TestHiddenRelocationAboveCwd(t *testing.T) {
	f := newFixture(t)
	host := f.host(f.proj)
	host.Env = append(host.Env, "GNUPGHOME="+f.home)
	_, err := Resolve(Request{}, host)
	if err == nil || !strings.Contains(err.Error(), "$GNUPGHOME") {
		t.Fatalf("Resolve = %v, want a refusal naming $GNUPGHOME", err)
	}
}

// TestProfileEntries: every shipped entry is in the syntax the header of
// profiles/hidden.txt describes, so none is silently taken as a path.
func TestProfileEntries(t *testing.T) {
	name := `[A-Za-z_][A-Za-z0-9_]*`
	for _, e := range profiles.Hidden() {
		switch {
		case strings.HasPrefix(e, "~/") && !strings.Contains(e, "$"):
		case matches(`^\$`+name+`(/[^$]+|\[:\])?$`, e):
		default:
			t.Errorf("profiles/hidden.txt: %q is neither ~/PATH nor $NAME[/PATH] nor $NAME[:]", e)
		}
	}
}

func matches(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// TestEnvCredentialsUnderInnocentNames: secrets in values, and names the
// substring rules miss, are dropped; look-alikes are kept; --pass-env lets
// one through unchanged.
func TestEnvCredentialsUnderInnocentNames(t *testing.T) {
	drop := []string{
		"DATABASE_URL=postgres://app:hunter2@db:5432/app", "REDIS_URL=redis://:hunter2@cache:6379/0",
		"HTTPS_PROXY=http://me:pw@proxy:3128", "PIP_INDEX_URL=https://__token__:abc@pypi.example/simple",
		"MYSQL_PWD=hunter2", "PGPASSWORD=hunter2", "DB_PASS=hunter2", "DB_PASSPHRASE=x",
		"NPM_CONFIG__AUTH=dXNlcjpwYXNz", "npm_config__auth=dXNlcjpwYXNz",
		"npm_config_//registry.example/:_authToken=t", "DOCKER_AUTH_CONFIG={}", "BW_SESSION=s",
		"CI_JOB_JWT=j", "CI_JOB_JWT_V2=j", "SENTRY_DSN=https://k@o.ingest.sentry.io/1", "MY_DSN=x",
		"VAULT_TOKEN=hvs.x", "OP_SESSION_my=s", "RAILS_MASTER_KEY=k", "CONN=Server=db;Uid=sa;Pwd=hunter2;",
		"AZ=DefaultEndpointsProtocol=https;AccountName=a;AccountKey=Zm9v;", "PEM=-----BEGIN OPENSSH PRIVATE KEY-----",
		"GH=ghp_" + strings.Repeat("a", 36), "OAI=sk-" + strings.Repeat("b", 40),
		"BLOB=https://acct.blob.core.windows.net/c?sv=2022&sig=abc%2Fdef", "MAPS=https://maps.example/api?key=AIzaXYZ",
		"HDR=Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "AWSID=AKIA" + strings.Repeat("C", 16), "STS=ASIA" + strings.Repeat("D", 16),
		"GITHUB_PAT=p", "AZURE_DEVOPS_EXT_PAT=p", "PAY=sk_live_" + strings.Repeat("e", 24), "RK=rk_live_" + strings.Repeat("f", 24),
		"GMAPS=AIza" + strings.Repeat("g", 35), "HOOK=https://hooks.slack.com/services/T0001/B0001/abcdef", "ID=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.sig",
	}
	keep := []string{
		"PWD=/src/app", "OLDPWD=/", "PATH=/usr/bin", "HOME=/h", "GIT_ASKPASS=/usr/bin/ask",
		"PASSENGER_APP_ENV=dev", "XAUTHORITY=/h/.Xauthority", "KEYMAP=us", "XDG_SESSION_ID=3",
		"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1/bus",
		"URL=https://example.com:8443/path?q=1", "GIT_URL=ssh://git@host/repo.git",
		"REGISTRY=https://registry.npmjs.org/@scope%2fpkg", "NOTE=ask-skip-this", "LS_COLORS=di=01;34",
		"SEARCH=https://example.com/?q=keyboard&page=2", "MSG=basic auth is off",
		"PATH_INFO=/x", "PATTERN=*.go", "SKETCH=sk_test_mode", "SLACK_CHANNEL=https://example.slack.com/archives/C01",
	}
	env, dropped, err := resolveEnv(append(append([]string{}, drop...), keep...), nil, []string{"DATABASE_URL"})
	if err != nil {
		t.Fatal(err)
	}
	kept := strings.Join(env, "\n") + "\n"
	for _, kv := range drop {
		name, _, _ := strings.Cut(kv, "=")
		if name == "DATABASE_URL" {
			if !strings.Contains(kept, kv+"\n") {
				t.Errorf("--pass-env DATABASE_URL: not passed unchanged:\n%s", kept)
			}
			continue
		}
		if strings.Contains(kept, kv+"\n") || !slices.Contains(dropped, name) {
			t.Errorf("%s kept (dropped: %v)", name, dropped)
		}
	}
	for _, kv := range keep {
		if !strings.Contains(kept, kv+"\n") {
			t.Errorf("%s dropped, want kept (dropped: %v)", kv, dropped)
		}
	}
	for _, d := range dropped {
		if strings.ContainsAny(d, "=") {
			t.Errorf("dropped list holds a value: %q", d)
		}
	}
}
