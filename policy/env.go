package policy

import (
	"regexp"
	"sort"
	"strings"
)

// credentialWords are substrings of variable names that usually carry
// secrets; a name containing one (case-insensitively) is dropped.
var credentialWords = []string{
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY",
	"PRIVATE_KEY", "CREDENTIAL",
}

// credentialParts are whole "_"-separated parts of a name that mark a
// secret, where a substring would catch too much (PWD, PASSENGER_*):
// DB_PASS, MYSQL_PWD, SENTRY_DSN, CI_JOB_JWT_V2, NPM_CONFIG__AUTH,
// DOCKER_AUTH_CONFIG, RAILS_MASTER_KEY, GITHUB_PAT (a personal access
// token: R's usethis and gh read it), AZURE_DEVOPS_EXT_PAT.
var credentialParts = map[string]bool{
	"PASS": true, "PWD": true, "PASSPHRASE": true, "DSN": true, "JWT": true,
	"AUTH": true, "KEY": true, "CREDS": true, "COOKIE": true, "PAT": true,
}

// notCredentials are names that match a rule above but hold none: AWS_*
// names that select, but do not hold, credentials; the shell's working
// directory.
var notCredentials = map[string]bool{
	"AWS_REGION": true, "AWS_DEFAULT_REGION": true, "AWS_PROFILE": true,
	"PWD": true,
}

// LooksLikeCredential reports whether an environment variable name is
// dropped by default.
func LooksLikeCredential(name string) bool {
	u := strings.ToUpper(name)
	if notCredentials[u] {
		return false
	}
	for _, w := range credentialWords {
		if strings.Contains(u, w) {
			return true
		}
	}
	for _, part := range strings.Split(u, "_") {
		if credentialParts[part] {
			return true
		}
	}
	switch {
	case strings.HasPrefix(u, "AWS_"), strings.HasPrefix(u, "GH_"),
		strings.HasPrefix(u, "OP_SESSION_"), u == "BW_SESSION", u == "SSH_AUTH_SOCK":
		return true
	}
	return false
}

// secretValue matches values that hold a secret whatever the variable is
// called (DATABASE_URL, REDIS_URL, PIP_INDEX_URL, a connection string):
//   - a URL with a password in its userinfo (scheme://user:pass@host), or a
//     secret in its query (?sig=, &token=, ?key=: Azure SAS, signed URLs);
//   - an HTTP Authorization value (Bearer or Basic and a long credential);
//   - a connection string with a Password=, Pwd=, AccountKey= or
//     SharedAccessKey= field (ADO.NET, ODBC, Azure Storage);
//   - a PEM private key;
//   - a token in a format its issuer made recognisable (GitHub, GitLab,
//     Slack, Anthropic, OpenAI, npm, PyPI, Hugging Face, Stripe's live
//     keys, Google's API keys, an AWS key id, a temporary one too) or a
//     JWT, or a Slack webhook URL (its path is the secret).
//
// The whole variable is dropped, not redacted: a URL without its password
// fails to authenticate anyway, and dropping leaves no half-parsed value
// (several hosts, %-escapes) that could still hold the secret.
var secretValue = regexp.MustCompile(`(?i:[a-z][a-z0-9+.-]*://[^/?#@\s]*:[^/?#@\s]*@)` +
	`|(?i:[?&](?:sig|token|access_token|auth|api_?key|key|password|secret)=[^&\s])` +
	`|(?i:\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,})` +
	`|(?i:(?:^|;)\s*(?:password|pwd|accountkey|sharedaccesskey)\s*=)` +
	`|PRIVATE KEY-----` +
	`|\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20}` +
	`|xox[abposr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}` +
	`|pypi-[A-Za-z0-9_-]{50,}|hf_[A-Za-z0-9]{30,}|A(?:KIA|SIA)[0-9A-Z]{16}` +
	`|[sr]k_live_[A-Za-z0-9]{16,}|AIza[0-9A-Za-z_-]{35})` +
	`|hooks\.slack\.com/services/T[A-Za-z0-9]+/` +
	`|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.`)

// HoldsCredential reports whether a variable's value is dropped by
// default, whatever its name.
func HoldsCredential(value string) bool { return secretValue.MatchString(value) }

// zsandboxOwn reports whether name configures zsandbox itself. The
// caller's ZSANDBOX_* settings are for this run: a zsandbox nested inside
// the command starts from its own defaults (it can only narrow the outer
// sandbox anyway) and does not trip over a hidden ZSANDBOX_SETTINGS file.
func zsandboxOwn(name string) bool {
	return strings.HasPrefix(name, "ZSANDBOX_")
}

// resolveEnv filters the host environment and applies --env and --pass-env.
func resolveEnv(hostEnv, set, pass []string) (env, dropped []string, err error) {
	passing := map[string]bool{}
	for _, n := range pass {
		if n == "" || strings.ContainsAny(n, "=\x00") {
			return nil, nil, usagef("--pass-env %q: not a variable name", n)
		}
		passing[n] = true
	}
	vals := map[string]string{}
	var order []string
	put := func(k, v string) {
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = v
	}
	for _, kv := range hostEnv {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if (LooksLikeCredential(k) || HoldsCredential(v) || zsandboxOwn(k)) && !passing[k] {
			dropped = appendOnce(dropped, k)
			continue
		}
		put(k, v)
	}
	for _, kv := range set {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsRune(kv, 0) {
			return nil, nil, usagef("--env %q: must be KEY=VALUE", kv)
		}
		put(k, v)
	}
	for _, k := range order {
		env = append(env, k+"="+vals[k])
	}
	sort.Strings(dropped)
	return env, dropped, nil
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
