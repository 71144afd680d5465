package remote

import (
	"context"
	"encoding/base64"
	"net/url"
	"os"
	"os/exec"
	"path"
	"strings"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
)

// Clone is a git repository cloned into a new sandbox, which then works
// in the clone (the apps' E2B and Daytona environments).
type Clone struct {
	URL    string
	Branch string
	// Dir is where it goes, relative to the cwd; "" is the repository's
	// name. A Dir that already holds a .git (an attached sandbox) is kept
	// as it is: nothing is cloned (the token is still sent to the script
	// that checks, and dropped unused).
	Dir string
	// Token authenticates an https clone (the apps' gitToken setting);
	// "" means GH_TOKEN, then GITHUB_TOKEN (both for github.com only),
	// then `gh auth token --hostname HOST`.
	Token string
	// StoreToken also leaves the token in the sandbox, in
	// ~/.git-credentials with git's store helper, so that git push
	// works there — where every command, the agent's too, can read it.
	// That is the seeds' behaviour, done only when asked. Without it the
	// token reaches only the clone's git, through its environment, and is
	// written nowhere.
	StoreToken bool
}

// GitUser is the user name git sends with a token (GitHub takes any;
// x-access-token is what GitHub Apps' tokens need).
const GitUser = "x-access-token"

// Lookup is where Clone finds a token: the environment and the gh CLI.
// Tests replace it.
type Lookup struct {
	Getenv func(string) string
	GH     func(ctx context.Context, host string) string
}

// HostLookup reads the host's environment and runs the host's gh.
var HostLookup = Lookup{Getenv: os.Getenv, GH: ghToken}

func ghToken(ctx context.Context, host string) string {
	gh, err := exec.LookPath("gh")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gh, "auth", "token", "--hostname", host)
	cmd.Stdin, cmd.Stderr = nil, nil
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// token finds the token for u (see Clone.Token); "" when there is none.
func (c *Clone) token(ctx context.Context, u *url.URL, l Lookup) string {
	if c.Token != "" {
		return c.Token
	}
	if u.Hostname() == "github.com" {
		for _, name := range []string{"GH_TOKEN", "GITHUB_TOKEN"} {
			if v := l.Getenv(name); v != "" {
				return v
			}
		}
	}
	if l.GH == nil {
		return ""
	}
	return l.GH(ctx, u.Hostname())
}

// Plan checks the clone and works out its parts: the directory (absolute,
// under cwd) and the token, which only an https URL carries.
func (c *Clone) Plan(ctx context.Context, kind, cwd string, l Lookup) (dir, token string, u *url.URL, err error) {
	u, err = url.Parse(c.URL)
	if err != nil || (u.Host == "") != (u.Scheme == "file") || hasPassword(u) || (u.User != nil && u.Scheme != "ssh") ||
		(u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "ssh" && u.Scheme != "file") {
		return "", "", nil, contexts.Errorf(contexts.ErrUsage, "%s: repo %q: want https://HOST/OWNER/REPO (with no credentials in it)", kind, redactURL(c.URL))
	}
	dir = c.Dir
	if dir == "" {
		dir = strings.TrimSuffix(path.Base(u.Path), ".git")
	}
	if dir == "" || dir == "." || dir == ".." || dir == "/" {
		return "", "", nil, contexts.Errorf(contexts.ErrUsage, "%s: repo %q: no directory name in it; set the clone's Dir", kind, c.URL)
	}
	if !path.IsAbs(dir) {
		dir = path.Join(cwd, dir)
	}
	if u.Scheme == "https" {
		token = c.token(ctx, u, l)
	} else if c.Token != "" {
		return "", "", nil, contexts.Errorf(contexts.ErrUsage, "%s: repo %q: a token is sent only over https", kind, c.URL)
	}
	return dir, token, u, nil
}

func hasPassword(u *url.URL) bool {
	_, set := u.User.Password()
	return set
}

// redactURL drops the user part of a URL that carries one — also of one
// that does not parse (a bad escape, a space in the host) or has no
// authority (user:token@host:path), where it is all up to the last @.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = url.User("REDACTED")
		return u.String()
	}
	if at := strings.LastIndex(s, "@"); at >= 0 {
		scheme, _, found := strings.Cut(s[:at], "://")
		if !found {
			scheme = ""
		} else {
			scheme += "://"
		}
		return scheme + "REDACTED" + s[at:]
	}
	return s
}

// cloneScript clones $3 into $2 (branch $4), with the header read from
// stdin given to git as GIT_CONFIG_VALUE_0 for http.$1.extraheader: the
// token is in no argv, no file and no other command's environment. With
// a header git follows no redirect: past one it sends every later
// request, header and all, to wherever the redirect pointed.
const cloneScript = `IFS= read -r zctx_auth || :
[ -e "$2/.git" ] && exit 0
if [ -n "$zctx_auth" ]; then export GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0="http.$1.extraheader" GIT_CONFIG_VALUE_0="$zctx_auth" GIT_CONFIG_KEY_1=http.followRedirects GIT_CONFIG_VALUE_1=false; fi
unset zctx_auth
export GIT_TERMINAL_PROMPT=0
if [ -n "$4" ]; then exec git clone --branch "$4" -- "$3" "$2"; fi
exec git clone -- "$3" "$2"`

// storeScript appends the credential line from stdin to
// ~/.git-credentials (0600) and turns git's store helper on.
const storeScript = `umask 077
IFS= read -r line || exit 1
printf '%s\n' "$line" >> "$HOME/.git-credentials" && git config --global credential.helper store`

// Authorization is the header git sends with token.
func Authorization(token string) string {
	return "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(GitUser+":"+token))
}

// Run clones into the sandbox through exec (a handle's Exec, with
// stdin) and returns the clone's directory. A token never appears in an
// error: git's output is scrubbed of it before it is quoted.
func (c *Clone) Run(ctx context.Context, kind, cwd string, l Lookup, execute func(context.Context, contexts.Cmd) (contexts.Result, error)) (string, error) {
	dir, token, u, err := c.Plan(ctx, kind, cwd, l)
	if err != nil {
		return "", err
	}
	header := ""
	if token != "" {
		header = Authorization(token)
	}
	var secrets []string
	if token != "" {
		secrets = []string{token, base64.StdEncoding.EncodeToString([]byte(GitUser + ":" + token))}
	}
	// Redacted before Tail cuts: a cut through the token would keep its end.
	scrub := func(b []byte) string { return Tail([]byte(Redact(string(b), secrets...))) }
	prefix := u.Scheme + "://" + u.Host + "/"
	r, err := execute(ctx, contexts.Cmd{Args: []string{"/bin/sh", "-c", cloneScript, "sh", prefix, dir, c.URL, c.Branch},
		Stdin: strings.NewReader(header + "\n"), Timeout: PregameTimeout})
	if err != nil {
		return "", contexts.Errorf(contexts.ErrUnavailable, "%s: git clone %s: %s", kind, c.URL, scrub([]byte(err.Error())))
	}
	if r.ExitCode != 0 {
		hint := "check the URL and the token (gitToken, GH_TOKEN or GITHUB_TOKEN for github.com, or gh auth login); it is never printed; " +
			"with a token no redirect is followed (it would take the token along): give the URL the repository moved to"
		if token == "" {
			hint = "no token was found: set the clone's Token, GH_TOKEN or GITHUB_TOKEN (github.com), or run gh auth login"
		}
		return "", contexts.Errorf(contexts.ErrUnavailable, "%s: git clone %s exited %d: %s", kind, c.URL, r.ExitCode,
			scrub(append(r.Stderr, r.Stdout...))).WithHint(hint)
	}
	if c.StoreToken && token != "" {
		line := u.Scheme + "://" + url.UserPassword(GitUser, token).String() + "@" + u.Host + "\n"
		r, err := execute(ctx, contexts.Cmd{Args: []string{"/bin/sh", "-c", storeScript}, Stdin: strings.NewReader(line), Timeout: time.Minute})
		if err == nil && r.ExitCode != 0 {
			err = contexts.Errorf(contexts.ErrUnavailable, "%s: storing the git token exited %d: %s", kind, r.ExitCode, scrub(append(r.Stderr, r.Stdout...)))
		} else if err != nil {
			err = contexts.Errorf(contexts.ErrUnavailable, "%s: storing the git token: %s", kind, scrub([]byte(err.Error())))
		}
		if err != nil {
			return "", err
		}
	}
	return dir, nil
}

// Option names in contexts.Options.Extra (zctx's flags) that both remote
// contexts read.
const (
	OptPregame       = "pregame"            // a file: uploaded to /tmp/<name>, run before the first command
	OptSandbox       = "sandbox"            // attach to this sandbox id
	OptOnDestroy     = "sandbox-on-destroy" // kill, pause, leave
	OptRepo          = "repo"               // clone this repository
	OptRepoBranch    = "repo-branch"
	OptStoreGitToken = "store-git-token" // "true": leave the token in the sandbox
)

// Applies is what the remote contexts read of the registry's Options.
var Applies = []string{contexts.OptNetwork, OptPregame, OptSandbox, OptOnDestroy, OptRepo, OptRepoBranch, OptStoreGitToken}

// CloneOf reads the clone flags; nil without --repo.
func CloneOf(extra map[string]string) *Clone {
	if extra[OptRepo] == "" {
		return nil
	}
	return &Clone{URL: extra[OptRepo], Branch: extra[OptRepoBranch], StoreToken: extra[OptStoreGitToken] == "true"}
}
