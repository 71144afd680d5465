package seatbelt_test

import (
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/seatbelt"
)

// decisionRow is one access and the answer the profile must give.
type decisionRow struct {
	why   string // the attack stopped, or the work that must keep working
	req   request
	allow bool
}

func file(op, path string) request { return request{op: op, path: path} }

func mach(name string) request { return request{op: "mach-lookup", name: name} }

// TestDecisions evaluates rendered profiles the way Seatbelt does (last
// matching rule wins, else deny default) against a table of accesses.
// proxyToken is the allowlist rule's port until the proxy listens.
const proxyToken = "ZSANDBOX_PROXY_PORT"

// TestWithProxyPort: the proxy's port goes into the allowlist's rule as a
// number; a profile without that rule takes none.
func TestWithProxyPort(t *testing.T) {
	var allowlist, deny renderCase
	for _, c := range renderCases() {
		switch c.name {
		case "allowlist":
			allowlist = c
		case "repo":
			deny = c
		}
	}
	prof, err := seatbelt.Render(allowlist.policy, allowlist.protected)
	if err != nil {
		t.Fatal(err)
	}
	got, err := prof.WithProxyPort(40123)
	if err != nil || !strings.Contains(got.Text, `(remote tcp "localhost:40123")`) || strings.Contains(got.Text, proxyToken) {
		t.Errorf("WithProxyPort(40123): %v\n%s", err, got.Text)
	}
	if _, err := checkProfile(got); err != nil {
		t.Errorf("the filled-in profile fails the checker: %v", err)
	}
	if _, err := prof.WithProxyPort(0); err == nil {
		t.Error("WithProxyPort(0) accepted")
	}
	other, _ := seatbelt.Render(deny.policy, deny.protected)
	if _, err := other.WithProxyPort(40123); err == nil {
		t.Error("a profile without the allowlist took a proxy port")
	}
}

func TestDecisions(t *testing.T) {
	const repo = home + "/src/app"
	tables := map[string][]decisionRow{
		"repo": {
			{"write outside every root", file("file-write-data", home+"/notes.txt"), false},
			{"create outside every root", file("file-write-create", home+"/.zsh_history2"), false},
			{"write a system file", file("file-write-data", "/private/etc/hosts"), false},
			{"write /usr/local", file("file-write-create", "/usr/local/bin/evil"), false},
			{"edit a source file", file("file-write-data", repo+"/main.go"), true},
			{"create a file in cwd", file("file-write-create", repo+"/new.go"), true},
			{"chmod a file in cwd", file("file-write-mode", repo+"/run.sh"), true},
			{"write TMPDIR", file("file-write-create", tmpd+"/go-build123/a.o"), true},
			{"write /tmp (canonical)", file("file-write-create", "/private/tmp/x"), true},
			{"write /var/tmp", file("file-write-data", "/private/var/tmp/x"), true},
			{"read anything", file("file-read-data", "/usr/bin/git"), true},
			{"read cwd", file("file-read-data", repo+"/main.go"), true},
			{"read an ssh key", file("file-read-data", home+"/.ssh/id_rsa"), false},
			{"list the ssh folder", file("file-read-metadata", home+"/.ssh"), false},
			{"read a hidden path that does not exist", file("file-read-data", home+"/.aws/credentials"), false},
			{"read a hidden file", file("file-read-data", home+"/.docker/config.json"), false},
			{"read beside a hidden file", file("file-read-data", home+"/.docker/daemon.json"), true},
			{"read a name sharing a hidden prefix", file("file-read-data", home+"/.sshrc"), true},
			{"read the XDG twin of git's credentials", file("file-read-data", home+"/.config/git/credentials"), false},
			{"read git's config beside its credentials", file("file-read-data", home+"/.config/git/config"), true},
			{"read an npm token", file("file-read-data", home+"/.npmrc"), false},
			{"read a registry login", file("file-read-data", home+"/.config/containers/auth.json"), false},
			{"read a terraform token", file("file-read-data", home+"/.terraform.d/credentials.tfrc.json"), false},
			{"read a maven password", file("file-read-data", home+"/.m2/settings.xml"), false},
			{"read the codex login", file("file-read-data", home+"/.codex/auth.json"), false},
			{"read the claude login", file("file-read-data", home+"/.claude/.credentials.json"), false},
			{"read the shell history", file("file-read-data", home+"/.zsh_history"), false},
			{"read the fish history", file("file-read-data", home+"/.local/share/fish/fish_history"), false},
			{"read Chrome's cookies", file("file-read-data", home+"/Library/Application Support/Google/Chrome/Default/Cookies"), false},
			{"read Firefox's logins", file("file-read-data", home+"/Library/Application Support/Firefox/Profiles/x/logins.json"), false},
			{"read Safari's history", file("file-read-data", home+"/Library/Safari/History.db"), false},
			{"read the login keychain", file("file-read-data", home+"/Library/Keychains/login.keychain-db"), false},
			{"read a pass entry", file("file-read-data", home+"/.password-store/bank.gpg"), false},
			{"read other application support", file("file-read-data", home+"/Library/Application Support/Code/User/settings.json"), true},
			{"read a relocated gpg key", file("file-read-data", home+"/work/gpg/private-keys-v1.d/k.key"), false},
			{"read beside a relocated store", file("file-read-data", home+"/work/notes"), true},
			{"read the account home's ssh key", file("file-read-data", accountHome+"/.ssh/id_ed25519"), false},
			{"read the account home's aws keys", file("file-read-data", accountHome+"/.aws/credentials"), false},
			{"read the account home's npm token", file("file-read-data", accountHome+"/.npmrc"), false},
			{"read elsewhere in the account home", file("file-read-data", accountHome+"/src/a.go"), true},
			{"plant a pre-commit hook (does not exist)", file("file-write-create", repo+"/.git/hooks/pre-commit"), false},
			{"rewrite an existing hook", file("file-write-data", repo+"/.git/hooks/pre-push"), false},
			{"chmod +x a hook", file("file-write-mode", repo+"/.git/hooks/post-checkout"), false},
			{"replace the hooks folder", file("file-write-create", repo+"/.git/hooks"), false},
			{"rename the hooks folder aside", file("file-write-unlink", repo+"/.git/hooks"), false},
			{"edit .git/config (core.fsmonitor)", file("file-write-data", repo+"/.git/config"), false},
			{"rename .git/config aside", file("file-write-unlink", repo+"/.git/config"), false},
			{"rename .git aside", file("file-write-unlink", repo+"/.git"), false},
			{"plant a .git gitfile", file("file-write-create", repo+"/.git"), false},
			{"rename the repository aside", file("file-write-unlink", repo), false},
			{"git writes objects", file("file-write-create", repo+"/.git/objects/ab/cdef"), true},
			{"git takes its index lock", file("file-write-create", repo+"/.git/index.lock"), true},
			{"git renames its index lock", file("file-write-unlink", repo+"/.git/index.lock"), true},
			{"git updates HEAD", file("file-write-data", repo+"/.git/HEAD"), true},
			{"git writes a ref", file("file-write-create", repo+"/.git/refs/heads/main"), true},
			{"a file named like a protected one", file("file-write-create", repo+"/.git/config.bak"), true},
			{"point git at another common dir", file("file-write-create", repo+"/.git/commondir"), false},
			{"turn on a per-worktree config", file("file-write-create", repo+"/.git/config.worktree"), false},
			{"plant an agent hook", file("file-write-create", repo+"/.claude/settings.json"), false},
			{"create the agent config folder", file("file-write-create", repo+"/.claude"), false},
			{"rename the agent config aside", file("file-write-unlink", repo+"/.claude"), false},
			{"plant an MCP server", file("file-write-create", repo+"/.mcp.json"), false},
			{"plant an editor task", file("file-write-create", repo+"/.vscode/tasks.json"), false},
			{"plant a JetBrains run configuration", file("file-write-data", repo+"/.idea/workspace.xml"), false},
			{"plant Codex, Gemini, Cursor and shared agent config", file("file-write-create", repo+"/.codex/config.toml"), false},
			{"plant Gemini settings", file("file-write-create", repo+"/.gemini/settings.json"), false},
			{"plant Cursor MCP servers", file("file-write-create", repo+"/.cursor/mcp.json"), false},
			{"plant shared agent skills", file("file-write-create", repo+"/.agents/skills/x.md"), false},
			{"plant zidane config", file("file-write-create", repo+"/.zidane/config"), false},
			{"write .envrc (direnv)", file("file-write-create", repo+"/.envrc"), false},
			{"add a submodule URL", file("file-write-data", repo+"/.gitmodules"), false},
			{"a name sharing an agent prefix", file("file-write-create", repo+"/.claudeignore"), true},
			{"an ordinary dot folder", file("file-write-create", repo+"/.github/workflows/ci.yml"), true},
			{"rename an unrelated file (source)", file("file-write-unlink", repo+"/a.txt"), true},
			{"rename an unrelated file (target)", file("file-write-create", repo+"/b.txt"), true},
			{"remove an unrelated folder", file("file-write-unlink", repo+"/build"), true},
			{"hard-link a file", file("file-link", repo+"/x"), false},
			{"clone a file", file("file-clone", repo+"/x"), false},
			{"connect out", request{op: "network-outbound"}, false},
			{"connect to a unix socket", file("network-outbound", "/private/var/run/mDNSResponder"), false},
			{"listen", request{op: "network-bind"}, false},
			{"accept", request{op: "network-inbound"}, false},
			{"certificate daemon while offline", mach("com.apple.trustd.agent"), false},
		},
		"cwd-is-home": {
			{"read an ssh key under the writable home", file("file-read-data", home+"/.ssh/id_ed25519"), false},
			{"add an authorized key", file("file-write-create", home+"/.ssh/authorized_keys"), false},
			{"append to an ssh config", file("file-write-data", home+"/.ssh/config"), false},
			{"replace the ssh folder", file("file-write-create", home+"/.ssh"), false},
			{"rename the ssh folder aside", file("file-write-unlink", home+"/.ssh"), false},
			{"create a missing hidden folder", file("file-write-create", home+"/.aws"), false},
			{"plant an npmrc (script-shell runs later outside)", file("file-write-create", home+"/.npmrc"), false},
			{"read the bash history under the writable home", file("file-read-data", home+"/.bash_history"), false},
			{"rename the browser profiles aside", file("file-write-unlink", home+"/Library/Application Support/Google/Chrome"), false},
			{"rename Application Support aside (carries Chrome)", file("file-write-unlink", home+"/Library/Application Support"), false},
			{"write a missing hidden file", file("file-write-create", home+"/.aws/credentials"), false},
			{"rename .config aside (carries gcloud)", file("file-write-unlink", home+"/.config"), false},
			{"plant .config as a symlink", file("file-write-create", home+"/.config"), false},
			{"rename home aside", file("file-write-unlink", home), false},
			{"write a dotfile", file("file-write-data", home+"/.bashrc"), false},
			{"replace a dotfile by rename", file("file-write-unlink", home+"/.zshrc"), false},
			{"create a missing dotfile", file("file-write-create", home+"/.zshenv"), false},
			{"edit the global git config", file("file-write-data", home+"/.gitconfig"), false},
			{"create the XDG git config", file("file-write-create", home+"/.config/git/config"), false},
			{"a file sharing a dotfile prefix", file("file-write-create", home+"/.bashrc2"), true},
			{"plant a file .bashrc sources", file("file-write-create", home+"/.bashrc.d/evil.sh"), false},
			{"plant .bash_aliases", file("file-write-create", home+"/.bash_aliases"), false},
			{"plant a readline macro", file("file-write-data", home+"/.inputrc"), false},
			{"plant a zsh logout file", file("file-write-create", home+"/.zlogout"), false},
			{"plant fish config", file("file-write-create", home+"/.config/fish/conf.d/x.fish"), false},
			{"plant a program on PATH (~/bin)", file("file-write-create", home+"/bin/ls"), false},
			{"plant a program on PATH (~/.local/bin)", file("file-write-create", home+"/.local/bin/git"), false},
			{"plant a .pth file", file("file-write-create", home+"/.local/lib/python3.12/site-packages/x.pth"), false},
			{"plant a .pth file (macOS python)", file("file-write-create", home+"/Library/Python/3.12/lib/python/site-packages/x.pth"), false},
			{"write ~/.local/share", file("file-write-create", home+"/.local/share/x"), true},
			{"plant a user systemd unit", file("file-write-create", home+"/.config/systemd/user/x.service"), false},
			{"plant an autostart entry", file("file-write-create", home+"/.config/autostart/x.desktop"), false},
			{"plant a session variable", file("file-write-create", home+"/.config/environment.d/x.conf"), false},
			{"plant Claude Code user hooks", file("file-write-data", home+"/.claude/settings.json"), false},
			{"plant Claude Code MCP servers", file("file-write-data", home+"/.claude.json"), false},
			{"plant Codex user config", file("file-write-create", home+"/.codex/config.toml"), false},
			{"plant a VS Code extension", file("file-write-create", home+"/.vscode/extensions/x/package.json"), false},
			{"plant a VS Code user task", file("file-write-create", home+"/.config/Code/User/tasks.json"), false},
			{"set npm's script-shell", file("file-write-create", home+"/.npmrc"), false},
			{"a backup beside a dotfile", file("file-write-create", home+"/.zshrc.bak"), true},
			{"other config", file("file-write-create", home+"/.config/htop/htoprc"), true},
			{"a cache", file("file-write-data", home+"/Library/Caches/x"), true},
			{"remove an unrelated folder in home", file("file-write-unlink", home+"/Downloads"), true},
			{"read zsandbox's settings", file("file-read-data", home+"/.config/zsandbox/settings.json"), false},
		},
		"linked-worktree": {
			{"write the worktree", file("file-write-data", home+"/wt/feature/main.go"), true},
			{"git writes objects in the common dir", file("file-write-create", home+"/src/app/.git/objects/12/3456"), true},
			{"git updates the worktree's HEAD", file("file-write-data", home+"/src/app/.git/worktrees/feature/HEAD"), true},
			{"plant a hook through the common dir", file("file-write-create", home+"/src/app/.git/hooks/pre-commit"), false},
			{"edit the common config", file("file-write-data", home+"/src/app/.git/config"), false},
			{"edit the worktree config", file("file-write-data", home+"/src/app/.git/worktrees/feature/config"), false},
			{"retarget the worktree's common dir", file("file-write-data", home+"/src/app/.git/worktrees/feature/commondir"), false},
			{"plant a per-worktree config", file("file-write-create", home+"/src/app/.git/worktrees/feature/config.worktree"), false},
			{"rewrite the worktree's .git file", file("file-write-data", home+"/wt/feature/.git"), false},
			{"plant agent config in the worktree", file("file-write-create", home+"/wt/feature/.claude/settings.json"), false},
			{"rename the common dir aside", file("file-write-unlink", home+"/src/app/.git"), false},
			{"write the main checkout", file("file-write-data", home+"/src/app/main.go"), false},
		},
		"extra-writable": {
			{"a root named /repo grants /repo", file("file-write-create", "/repo/x"), true},
			{"a root named /repo does not grant /repo-evil", file("file-write-create", "/repo-evil/x"), false},
			{"nor /repo2", file("file-write-data", "/repo2"), false},
			{"go build cache", file("file-write-create", home+"/Library/Caches/go-build/ab/cd-d"), true},
			{"a sibling cache", file("file-write-create", home+"/Library/Caches/pip/x"), false},
			{"/opt/work", file("file-write-create", "/opt/work/out"), true},
			{"a hidden path inside a root", file("file-read-data", "/repo/secrets/key"), false},
			{"write a hidden path inside a root", file("file-write-create", "/repo/secrets/key"), false},
			{"rename the root holding a hidden path", file("file-write-unlink", "/repo"), false},
			{"/repo's hooks", file("file-write-create", "/repo/.git/hooks/pre-commit"), false},
		},
		"network-allow": {
			{"connect out", request{op: "network-outbound"}, true},
			{"listen", request{op: "network-bind"}, true},
			{"certificate evaluation", mach("com.apple.trustd.agent"), true},
			{"resolver configuration", mach("com.apple.SystemConfiguration.DNSConfiguration"), true},
			{"a tmux server in /tmp", file("network-outbound", "/private/tmp/tmux-501/default"), false},
			{"the docker socket", file("network-outbound", "/private/var/run/docker.sock"), false},
			{"the docker socket in the home", file("network-outbound", home+"/.docker/run/docker.sock"), false},
			{"an ssh agent socket", file("network-outbound", "/private/tmp/com.apple.launchd.abc/Listeners"), false},
			{"its own socket in cwd: Seatbelt cannot tell", file("network-outbound", home+"/src/app/pg.sock"), false},
			{"DNS through mDNSResponder", file("network-outbound", "/private/var/run/mDNSResponder"), true},
			{"serve on a socket in cwd", file("network-bind", home+"/src/app/pg.sock"), true},
			{"the gpg agent in a hidden folder", file("network-outbound", home+"/.gnupg/S.gpg-agent"), false},
			{"an ssh agent socket in a hidden folder", file("network-outbound", home+"/.ssh/agent.sock"), false},
			{"hidden stays hidden with the network on", file("file-read-data", home+"/.ssh/id_rsa"), false},
		},
		"unix-sockets": {
			{"connect out", request{op: "network-outbound"}, true},
			{"a tmux server in /tmp (--allow-unix-sockets)", file("network-outbound", "/private/tmp/tmux-501/default"), true},
			{"the docker socket (--allow-unix-sockets)", file("network-outbound", "/private/var/run/docker.sock"), true},
			{"its own socket in cwd", file("network-outbound", home+"/pg.sock"), true},
			{"an ssh agent socket in a hidden folder", file("network-outbound", home+"/.ssh/agent.sock"), false},
		},
		"allowlist": {
			{"connect to the proxy's port", request{op: "network-outbound", remote: "localhost:" + proxyToken}, true},
			{"UDP to the proxy's port (a host service there)", request{op: "network-outbound", remote: "localhost:" + proxyToken, udp: true}, false},
			{"connect out elsewhere", request{op: "network-outbound"}, false},
			{"another loopback port (a host daemon, another run's proxy)", request{op: "network-outbound", remote: "localhost:22"}, false},
			{"any host on 443", request{op: "network-outbound", remote: "*:443"}, false},
			{"listen", request{op: "network-bind"}, false},
			{"DNS through mDNSResponder", file("network-outbound", "/private/var/run/mDNSResponder"), false},
			{"the docker socket", file("network-outbound", "/private/var/run/docker.sock"), false},
			{"certificate evaluation", mach("com.apple.trustd.agent"), true},
			{"resolver configuration", mach("com.apple.SystemConfiguration.DNSConfiguration"), false},
			{"hidden stays hidden", file("file-read-data", home+"/.ssh/id_rsa"), false},
		},
		"unix-sockets-offline": {
			{"connect out", request{op: "network-outbound"}, false},
			{"listen on a port", request{op: "network-bind"}, false},
			{"a tmux server in /tmp (--allow-unix-sockets)", file("network-outbound", "/private/tmp/tmux-501/default"), true},
			{"serve on a socket in cwd", file("network-bind", home+"/pg.sock"), true},
			{"accept on it", file("network-inbound", home+"/pg.sock"), true},
			{"the gpg agent in a hidden folder", file("network-outbound", home+"/.gnupg/S.gpg-agent"), false},
		},
		"non-canonical": {
			{"/tmp given as a root allows /private/tmp", file("file-write-create", "/private/tmp/x"), true},
			{"TMPDIR given under /var", file("file-write-create", "/private/var/folders/zz/abc123/T/x"), true},
			{"a hidden path under /etc", file("file-read-data", "/private/etc/ssl/private/key.pem"), false},
			{"hidden under /tmp", file("file-read-data", "/private/tmp/proj/.env"), false},
			{"protected under /tmp", file("file-write-create", "/private/tmp/proj/.git/hooks/pre-commit"), false},
			{"/private/var outside the roots", file("file-write-create", "/private/var/db/x"), false},
		},
		"hostile-names": {
			{"write in a root with quotes and parentheses", file("file-write-create", home+`/we"ird (dir)/x`), true},
			{"write in a root with a space", file("file-write-create", home+"/with space/x"), true},
			{"write in a root with a newline", file("file-write-data", home+"/new\nline/x"), true},
			{"the injection attempt stays a path", file("file-write-create", home+`/x")) (allow default) (deny file-read* (literal "/f`), true},
			{"the injection did not allow everything", file("file-write-create", "/usr/bin/x"), false},
			{"the injection did not deny reads", file("file-read-data", "/usr/bin/git"), true},
			{"a hidden path with quotes", file("file-read-data", home+`/we"ird (dir)/.ssh/id_rsa`), false},
			{"a hidden path with unicode", file("file-read-data", home+"/ünï/çødé"), false},
			{"a hidden path of parentheses", file("file-read-data", home+"/))))/x"), false},
			{"a protected path behind a newline", file("file-write-data", home+"/new\nline/.git/config"), false},
		},
	}
	common := []decisionRow{
		{"run a program", file("process-exec", "/usr/bin/git"), true},
		{"run a program built in a root", file("process-exec", "/private/tmp/a.out"), true},
		{"fork", request{op: "process-fork"}, true},
		{"signal a child", request{op: "signal", target: "same-sandbox"}, true},
		{"signal itself", request{op: "signal", target: "self"}, true},
		{"signal the caller's shell", request{op: "signal", target: "other"}, false},
		{"inspect a child", request{op: "process-info-pidinfo", target: "same-sandbox"}, true},
		{"inspect another process", request{op: "process-info-pidinfo", target: "other"}, false},
		{"list another process's files", request{op: "process-info-pidfdinfo", target: "other"}, false},
		{"read the CPU count", request{op: "sysctl-read", name: "hw.ncpu"}, true},
		{"read another process's environment", request{op: "sysctl-read", name: "kern.procargs2"}, false},
		{"write a sysctl", request{op: "sysctl-write", name: "kern.maxfiles"}, false},
		{"user lookup", mach("com.apple.system.opendirectoryd.libinfo"), true},
		{"the keychain", mach("com.apple.SecurityServer"), false},
		{"the data protection keychain", mach("com.apple.securityd.xpc"), false},
		{"the pasteboard", mach("com.apple.pasteboard.1"), false},
		{"LaunchServices", mach("com.apple.coreservices.launchservicesd"), false},
		{"open an app", request{op: "lsopen"}, false},
		{"script another app", request{op: "appleevent-send"}, false},
		{"register a Mach service", request{op: "mach-register", name: "evil"}, false},
		{"read preferences", request{op: "user-preference-read"}, true},
		{"write preferences", request{op: "user-preference-write"}, false},
		{"python multiprocessing lock", request{op: "ipc-posix-sem-create", name: "/mp-123"}, true},
		{"notify shared page", request{op: "ipc-posix-shm-read-data", name: "apple.shm.notification_center"}, true},
		{"create shared memory", request{op: "ipc-posix-shm-write-create", name: "x"}, false},
		{"write /dev/null", file("file-write-data", "/dev/null"), true},
		{"write into a FIFO outside the roots (a host program reads it)", file("file-write-data", "/private/var/run/zs.fifo"), false},
		{"write /dev/fd/1", file("file-write-data", "/dev/fd/1"), true},
		{"write a disk", file("file-write-data", "/dev/disk0"), false},
		{"open a pty pair", request{op: "pseudo-tty"}, true},
		{"open the pty multiplexer", file("file-write-data", "/dev/ptmx"), true},
		{"use a pty it created", request{op: "file-write-data", path: "/dev/ttys009", ext: []string{"com.apple.sandbox.pty"}}, true},
		{"read a pty it created", request{op: "file-read-data", path: "/dev/ttys009", ext: []string{"com.apple.sandbox.pty"}}, true},
		{"type into another terminal", file("file-write-data", "/dev/ttys003"), false},
		{"read another terminal's keystrokes", file("file-read-data", "/dev/ttys003"), false},
		{"stat a terminal", file("file-read-metadata", "/dev/ttys003"), true},
		{"isatty on an inherited terminal", file("file-ioctl", "/dev/ttys003"), true},
		{"ioctl a disk", file("file-ioctl", "/dev/disk0"), false},
		{"load a kernel extension", request{op: "system-kext-load"}, false},
	}
	for name, rows := range tables {
		c := findCase(name)
		prof, err := seatbelt.Render(c.policy, c.protected)
		if err != nil {
			t.Fatalf("Render(%s): %v", name, err)
		}
		sp, err := checkProfile(prof)
		if err != nil {
			t.Fatalf("checkProfile(%s): %v", name, err)
		}
		for _, row := range append(rows, common...) {
			if got, line := sp.decide(row.req); got != row.allow {
				t.Errorf("%s: %s: %+v allowed=%v (decided by line %d), want %v",
					name, row.why, row.req, got, line, row.allow)
			}
		}
	}
}
