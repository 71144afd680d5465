package seatbelt_test

import (
	"strings"

	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/profiles"
)

// The policies the golden files and the decision table are built from,
// written as policy.Resolve would produce them on a Mac (except where a case
// says otherwise), with the protected paths the policy package will compute.

type renderCase struct {
	name      string
	policy    *policy.Policy
	protected []string
}

const (
	home = "/Users/u"
	// accountHome is the passwd home of a caller whose $HOME is home.
	accountHome = "/Users/agent"
	tmpd        = "/private/var/folders/zz/abc123/T" // a macOS TMPDIR, resolved
)

func roots(paths ...string) []policy.Root {
	out := make([]policy.Root, len(paths))
	for i, p := range paths {
		out[i] = policy.Root{Path: p, Source: policy.SourceDefault}
	}
	return out
}

func hidden(paths ...string) []policy.Hidden {
	out := make([]policy.Hidden, len(paths))
	for i, p := range paths {
		out[i] = policy.Hidden{Path: p}
	}
	return out
}

// defaultHidden is the shipped credential list under home (profiles/
// hidden.txt; the variables of a Mac that sets none add nothing) plus a
// store moved by one ($GNUPGHOME) and the account's home when $HOME points
// elsewhere; .ssh exists, the rest do not.
func defaultHidden() []policy.Hidden {
	var h []policy.Hidden
	for _, e := range profiles.Hidden() {
		if rel, ok := strings.CutPrefix(e, "~/"); ok {
			h = append(h, policy.Hidden{Path: home + "/" + rel})
			h = append(h, policy.Hidden{Path: accountHome + "/" + rel, Source: policy.SourceAccountHome})
		}
	}
	h = append(h, policy.Hidden{Path: home + "/work/gpg", Source: "$GNUPGHOME"})
	h[0].Exists, h[0].IsDir = true, true
	return h
}

// repoProtected is what policy.Resolve protects for a repository at repo
// (the shipped lists): git's files in repo/.git and the project config at
// the top.
func repoProtected(repo string) []string {
	var out []string
	for _, e := range profiles.ProtectedInGitDir() {
		out = append(out, repo+"/.git/"+e.Path)
	}
	for _, e := range profiles.ProtectedInProject() {
		out = append(out, repo+"/"+e.Path)
	}
	return out
}

// homeProtected is the shipped home list with home as the writable cwd.
func homeProtected() []string {
	var out []string
	for _, e := range profiles.ProtectedInHome() {
		if !strings.Contains(e.Path, "/") {
			continue // "$NAME": only when the variable is set
		}
		p := strings.NewReplacer("~/", "", "$XDG_CONFIG_HOME/", ".config/", "$ZDOTDIR/", "").Replace(e.Path)
		out = append(out, home+"/"+p)
	}
	return out
}

func renderCases() []renderCase {
	repo := home + "/src/app"
	return []renderCase{
		{
			name: "repo",
			policy: &policy.Policy{
				Cwd: repo, Home: home,
				Writable: roots(repo, tmpd, "/private/tmp", "/private/var/tmp"),
				Hidden:   defaultHidden(),
				Network:  policy.NetworkDeny,
			},
			protected: repoProtected(repo),
		},
		{
			name: "cwd-is-home",
			policy: &policy.Policy{
				Cwd: home, Home: home,
				Writable: roots(home, tmpd, "/private/tmp", "/private/var/tmp"),
				Hidden:   defaultHidden(),
				Network:  policy.NetworkDeny,
			},
			protected: homeProtected(),
		},
		{
			// cwd is a linked worktree; git's common dir is an extra root
			// whose hooks and config are protected.
			name: "linked-worktree",
			policy: &policy.Policy{
				Cwd: home + "/wt/feature", Home: home,
				Writable: roots(home+"/src/app/.git", home+"/wt/feature", "/private/tmp"),
				Hidden:   hidden(home + "/.ssh"),
				Network:  policy.NetworkDeny,
			},
			protected: append(repoProtected(home+"/src/app"),
				home+"/src/app/.git/worktrees/feature/config",
				home+"/src/app/.git/worktrees/feature/config.worktree",
				home+"/src/app/.git/worktrees/feature/commondir",
				home+"/wt/feature/.git", home+"/wt/feature/.claude", home+"/wt/feature/.vscode"),
		},
		{
			name: "extra-writable",
			policy: &policy.Policy{
				Cwd: repo, Home: home,
				Writable: roots("/repo", repo, home+"/Library/Caches/go-build", "/opt/work"),
				Hidden:   hidden(home+"/.ssh", "/repo/secrets"),
				Network:  policy.NetworkDeny,
			},
			protected: append(repoProtected(repo), repoProtected("/repo")...),
		},
		homeCase("network-allow", policy.NetworkAllow, false),
		homeCase("unix-sockets", policy.NetworkAllow, true),
		homeCase("unix-sockets-offline", policy.NetworkDeny, true),
		homeCase("allowlist", policy.NetworkAllowlist, false),
		{
			// Written by hand (or resolved on Linux): /tmp, /var and /etc are
			// not yet under /private.
			name: "non-canonical",
			policy: &policy.Policy{
				Cwd: "/tmp/proj", Home: home,
				Writable: roots("/tmp/proj", "/var/folders/zz/abc123/T/", "//tmp"),
				Hidden:   hidden("/etc/ssl/private", "/tmp/proj/.env"),
				Network:  policy.NetworkDeny,
			},
			protected: []string{"/tmp/proj/.git/hooks", "/tmp/proj/.git/config"},
		},
		{
			name: "hostile-names",
			policy: &policy.Policy{
				Cwd: home + `/we"ird (dir)`, Home: home,
				Writable: roots(home+`/we"ird (dir)`, home+"/with space", home+"/new\nline",
					home+`/x")) (allow default) (deny file-read* (literal "`,
					home+"/semi;colon #\"re\" \\back"),
				Hidden:  hidden(home+`/we"ird (dir)/.ssh`, home+"/ünï/çødé", home+"/))))"),
				Network: policy.NetworkAllow,
			},
			protected: []string{home + `/we"ird (dir)/.git/hooks`, home + "/new\nline/.git/config"},
		},
		{
			name: "nothing-hidden",
			policy: &policy.Policy{
				Cwd: "/private/tmp/scratch", Home: home,
				Writable: roots("/private/tmp/scratch"),
				Network:  policy.NetworkDeny,
			},
		},
	}
}

// homeCase is cwd = home with /private/tmp writable and the ssh and gpg
// folders hidden, under the given network and unix-socket settings.
func homeCase(name string, network policy.Network, unixSockets bool) renderCase {
	return renderCase{
		name: name,
		policy: &policy.Policy{
			Cwd: home, Home: home,
			Writable: roots(home, "/private/tmp"),
			Hidden:   hidden(home+"/.ssh", home+"/.gnupg"),
			Network:  network, UnixSockets: unixSockets,
		},
		protected: homeProtected()[:1],
	}
}

func findCase(name string) renderCase {
	for _, c := range renderCases() {
		if c.name == name {
			return c
		}
	}
	panic("no render case " + name)
}
