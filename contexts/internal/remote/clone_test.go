package remote

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
)

func lookup(env map[string]string, gh string) Lookup {
	return Lookup{Getenv: func(k string) string { return env[k] },
		GH: func(context.Context, string) string { return gh }}
}

// The token's sources in the seeds' order: the setting, GH_TOKEN, then
// GITHUB_TOKEN (github.com only), then gh; only https carries one.
func TestClonePlanToken(t *testing.T) {
	env := map[string]string{"GH_TOKEN": "from-gh-token", "GITHUB_TOKEN": "from-github-token"}
	for _, c := range []struct {
		name  string
		clone Clone
		env   map[string]string
		gh    string
		want  string
	}{
		{"setting first", Clone{URL: "https://github.com/o/r", Token: "setting"}, env, "cli", "setting"},
		{"GH_TOKEN", Clone{URL: "https://github.com/o/r"}, env, "cli", "from-gh-token"},
		{"GITHUB_TOKEN", Clone{URL: "https://github.com/o/r.git"}, map[string]string{"GITHUB_TOKEN": "from-github-token"}, "cli", "from-github-token"},
		{"gh last", Clone{URL: "https://github.com/o/r"}, nil, "cli", "cli"},
		{"env only for github.com", Clone{URL: "https://gitlab.example/o/r"}, env, "", ""},
		{"gh for another host", Clone{URL: "https://ghe.example/o/r"}, env, "ghe", "ghe"},
		{"no token over ssh", Clone{URL: "ssh://git@github.com/o/r"}, env, "cli", ""},
	} {
		dir, tok, _, err := c.clone.Plan(context.Background(), "e2b", "/home/user", lookup(c.env, c.gh))
		if err != nil || tok != c.want || dir != "/home/user/r" {
			t.Errorf("%s: Plan = %q, %q, %v; want /home/user/r, %q", c.name, dir, tok, err, c.want)
		}
	}
}

// Bad repositories are usage errors, and one with a password in it is
// not echoed with the password.
func TestClonePlanRefuses(t *testing.T) {
	for _, c := range []Clone{
		{URL: "https://user:hunter2secret@github.com/o/r"}, {URL: "github.com/o/r"}, {URL: "git@github.com:o/r"},
		// Attack: a URL with credentials that does not parse was quoted whole.
		{URL: "https://user:hunter2secret@github.com/o/%zz"}, {URL: "https://hunter2secret@git hub.com/o/r"},
		{URL: "user:hunter2secret@github.com:o/r"},
		{URL: "http://example.com/o/r", Token: "t"}, {URL: "https://github.com/"},
	} {
		_, _, _, err := c.Plan(context.Background(), "e2b", "/w", lookup(nil, ""))
		if !errors.Is(err, contexts.ErrUsage) || strings.Contains(err.Error(), "hunter2secret") {
			t.Errorf("%+v: %v; want a usage error without the password", c, err)
		}
	}
}
