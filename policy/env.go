package policy

import (
	"sort"
	"strings"
)

// credentialWords are substrings of variable names that usually carry
// secrets; a name containing one (case-insensitively) is dropped.
var credentialWords = []string{
	"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY",
	"PRIVATE_KEY", "CREDENTIAL",
}

// awsHarmless are AWS_* names that select, but do not hold, credentials.
var awsHarmless = map[string]bool{"AWS_REGION": true, "AWS_DEFAULT_REGION": true, "AWS_PROFILE": true}

// LooksLikeCredential reports whether an environment variable name is
// dropped by default.
func LooksLikeCredential(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range credentialWords {
		if strings.Contains(u, w) {
			return true
		}
	}
	switch {
	case strings.HasPrefix(u, "AWS_"):
		return !awsHarmless[u]
	case strings.HasPrefix(u, "GH_"), u == "SSH_AUTH_SOCK":
		return true
	}
	return false
}

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
		if (LooksLikeCredential(k) || zsandboxOwn(k)) && !passing[k] {
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
