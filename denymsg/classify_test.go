package denymsg

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zsandbox/zsandbox/policy"
)

// facts is a sandbox like the default one: cwd /home/u/proj.
func facts() Facts {
	return Facts{
		Writable:    []string{"/home/u/proj", "/tmp", "/var/tmp"},
		Hidden:      []string{"/home/u/.ssh", "/home/u/.netrc", "/home/u/proj/secrets"},
		Protected:   []string{"/home/u/proj/.git/hooks", "/home/u/proj/.git/config"},
		NetworkDeny: true,
		Cwd:         "/home/u/proj",
	}
}

func write(p string) *Finding { return &Finding{Kind: KindWrite, Path: p} }

func hidden(p, e string) *Finding { return &Finding{Kind: KindHidden, Path: p, Entry: e} }

func protected(p, e string) *Finding { return &Finding{Kind: KindProtected, Path: p, Entry: e} }

var (
	net     = &Finding{Kind: KindNetwork}
	seccomp = &Finding{Kind: KindSeccomp}
)

func TestClassify(t *testing.T) {
	noCwd := func(f *Facts) { f.Cwd = "" }
	allow := func(f *Facts) { f.NetworkDeny = false }
	tests := []struct {
		name  string
		line  string
		facts func(*Facts)
		want  *Finding // nil: no finding
	}{
		// Shapes of path messages (captured ones live in testdata/captures).
		{"quoted", "touch: cannot touch '/etc/x': Read-only file system", nil, write("/etc/x")},
		{"unquoted", "open /etc/x: read-only file system", nil, write("/etc/x")},
		{"unquoted after verb", "/bin/sh: 1: cannot create /etc/x: Read-only file system", nil, write("/etc/x")},
		{"spaces and colons", "bash: line 1: /etc/a b:c: Read-only file system", nil, write("/etc/a b:c")},
		{"double quotes around an apostrophe", `touch: cannot touch "/etc/it's": Read-only file system`, nil, write("/etc/it's")},
		{"utf-8 quotes", "mkdir: cannot create directory ‘/etc/d’: Read-only file system", nil, write("/etc/d")},
		{"gnu old quotes", "cp: cannot create regular file `/etc/x': Read-only file system", nil, write("/etc/x")},
		{"backticks", "error: failed to create directory `/opt/t`: Permission denied", nil, write("/opt/t")},
		{"shell-escaped newline", `touch: cannot touch '/etc/a'$'\n''b': Read-only file system`, nil, write("/etc/a\nb")},
		{"shell-escaped octal", `touch: cannot touch '/etc/'$'\303\251': Read-only file system`, nil, write("/etc/é")},
		{"shell-escaped apostrophe", `rm: cannot remove '/etc/a'\''b': Read-only file system`, nil, write("/etc/a'b")},
		{"apostrophe inside a word", "Fatal error: can't create /etc/hello.o: Read-only file system", nil, write("/etc/hello.o")},
		{"python after", "OSError: [Errno 30] Read-only file system: '/etc/x'", nil, write("/etc/x")},
		{"python rename", "OSError: [Errno 30] Read-only file system: '/etc/a' -> '/etc/b'", nil, write("/etc/a")},
		{"node after", "Error: EACCES: permission denied, mkdir '/usr/lib/node_modules/x'", nil, write("/usr/lib/node_modules/x")},
		{"rust after", `error: Read-only file system (os error 30) at path "/opt/t"`, nil, write("/opt/t")},
		{"rust without path", "  Read-only file system (os error 30)", nil, write("")},
		{"zsh after", "zsh:1: read-only file system: /etc/x", nil, write("/etc/x")},
		{"wget parenthesised", "wget: Cannot write to /etc/x (Permission denied).", nil, write("/etc/x")},
		{"go link error names the first path", "rename /etc/a /etc/b: read-only file system", nil, write("/etc/a")},
		{"mv across devices names the target", "mv: inter-device move failed: '/tmp/x' to '/etc/x'; unable to remove target: Read-only file system", nil, write("/etc/x")},
		{"unclean path", "touch: cannot touch '/etc//a/../x': Read-only file system", nil, write("/etc/x")},
		{"errno name is not a path", "Error: EACCES: permission denied", nil, write("")},
		{"program name is not a path", "mkdir: Permission denied", nil, write("")},
		{"url is not a path", "fatal: unable to write https://x/y: Read-only file system", nil, write("")},
		{"home-relative cannot be placed", "touch: cannot touch '~/x': Read-only file system", nil, write("")},

		// macOS (Seatbelt answers EPERM); formats of BSD tools and zsh.
		{"bsd touch", "touch: /etc/x: Operation not permitted", nil, write("/etc/x")},
		{"zsh redirect", "zsh: operation not permitted: /etc/x", nil, write("/etc/x")},
		{"python eperm with path", "PermissionError: [Errno 1] Operation not permitted: '/etc/x'", nil, write("/etc/x")},
		{"macos resolver", "socket.gaierror: [Errno 8] nodename nor servname provided, or not known", nil, net},

		// Relative paths.
		{"relative resolved against cwd", "cat: secrets/token: Permission denied", nil, hidden("/home/u/proj/secrets/token", "/home/u/proj/secrets")},
		{"relative protected", "/bin/sh: 1: cannot create .git/hooks/pre-commit: Read-only file system", nil, protected("/home/u/proj/.git/hooks/pre-commit", "/home/u/proj/.git/hooks")},
		{"relative permission error in the cwd", "touch: cannot touch 'notmine/x': Permission denied", nil, nil},
		{"relative read-only in the cwd: the command moved", "/bin/sh: 1: cannot create zs-x: Read-only file system", nil, write("")},
		{"relative without cwd", "touch: cannot touch 'x': Read-only file system", noCwd, write("")},
		{"relative permission error without cwd", "touch: cannot touch 'x': Permission denied", noCwd, write("")},
		{"bare name after line number", "bash: line 1: out.txt: Permission denied", nil, nil},

		// Where the path lies.
		{"permission error in a writable root", "touch: cannot touch '/tmp/ro/x': Permission denied", nil, nil},
		{"read-only in a writable root", "touch: cannot touch '/tmp/x': Read-only file system", nil, nil},
		{"component-wise: prefix of a root", "touch: cannot touch '/home/u/proj-evil/x': Read-only file system", nil, write("/home/u/proj-evil/x")},
		{"component-wise: parent of a root", "touch: cannot touch '/home/u/pro': Read-only file system", nil, write("/home/u/pro")},
		{"component-wise: hidden prefix", "touch: cannot touch '/home/u/.sshd/x': Permission denied", nil, write("/home/u/.sshd/x")},
		{"hidden entry itself", "ls: cannot open directory '/home/u/.ssh': Permission denied", nil, hidden("/home/u/.ssh", "/home/u/.ssh")},
		{"hidden beats writable", "cat: /home/u/proj/secrets/t: No such file or directory", nil, hidden("/home/u/proj/secrets/t", "/home/u/proj/secrets")},
		{"hidden file", "cat: /home/u/.netrc: Permission denied", nil, hidden("/home/u/.netrc", "/home/u/.netrc")},
		{"hidden via go", "open /home/u/.ssh/id_ed25519: no such file or directory", nil, hidden("/home/u/.ssh/id_ed25519", "/home/u/.ssh")},
		{"protected config busy", "rm: cannot remove '.git/config': Device or resource busy", nil, protected("/home/u/proj/.git/config", "/home/u/proj/.git/config")},
		{"busy elsewhere", "rm: cannot remove '/tmp/mnt': Device or resource busy", nil, nil},
		{"busy outside the roots", "umount: /mnt: Device or resource busy", nil, nil},
		{"missing file", "cat: /etc/nope: No such file or directory", nil, nil},

		// Reads refused by a file's own mode are not the sandbox.
		{"find over proc", "find: '/proc/1/map_files': Permission denied", nil, nil},
		{"grep by path", "/usr/bin/grep: /etc/shadow: Permission denied", nil, nil},
		{"ls directory", "ls: cannot open directory '/root': Permission denied", nil, nil},
		{"wget reads its config", "wget: Cannot read /etc/wgetrc (Permission denied).", nil, nil},
		{"macOS privacy folder", "find: /Users/u/Library/Mail: Operation not permitted", nil, nil},
		{"reader without a path", "find: Permission denied", nil, nil},
		{"reader on a hidden path", "cat: /home/u/.ssh/id_rsa: Permission denied", nil, hidden("/home/u/.ssh/id_rsa", "/home/u/.ssh")},
		{"writer on an unreadable dir", "touch: cannot touch '/home/u/locked/x': Permission denied", nil, write("/home/u/locked/x")},
		{"missing protected file", "cat: .git/hooks/pre-push: No such file or directory", nil, nil},
		{"eperm in a writable root", "chown: changing ownership of 'a': Operation not permitted", nil, nil},
		{"eperm without a path", "unshare: unshare failed: Operation not permitted", nil, nil},

		// Network.
		{"curl dns", "curl: (6) Could not resolve host: example.com", nil, net},
		{"curl dns, network allowed", "curl: (6) Could not resolve host: example.com", allow, nil},
		{"glibc", "ssh: Could not resolve hostname x: Temporary failure in name resolution", nil, net},
		{"glibc noname", "ping: example.com: Name or service not known", nil, net},
		{"node", "Error: getaddrinfo ENOTFOUND registry.npmjs.org", nil, net},
		{"go lookup", "dial tcp: lookup example.com: no such host", nil, net},
		{"go unreachable", "dial tcp 192.0.2.1:80: connect: network is unreachable", nil, net},
		{"loopback refused", "dial tcp 127.0.0.1:5432: connect: connection refused", nil, net},
		{"loopback refused, network allowed", "dial tcp 127.0.0.1:5432: connect: connection refused", allow, nil},
		{"socket refused by the filter", "dial tcp 192.0.2.1:80: socket: operation not permitted", nil, net},
		{"socket refused, network allowed", "dial tcp 192.0.2.1:80: socket: operation not permitted", allow, nil},
		{"python bare eperm", "PermissionError: [Errno 1] Operation not permitted", nil, net},
		{"python bare eperm, network allowed", "PermissionError: [Errno 1] Operation not permitted", allow, nil},
		{"redis client", "Error 1 connecting to localhost:6379. Operation not permitted.", nil, net},

		// Seccomp and near misses.
		{"dash", "Bad system call", nil, seccomp},
		{"bash", "bash: line 1:  4242 Bad system call         (core dumped) uname -a", nil, seccomp},
		{"ssh auth", "git@github.com: Permission denied (publickey).", nil, nil},
		{"ssh password", "Permission denied, please try again.", nil, nil},
		{"ordinary line", "ok  \tgithub.com/zsandbox/zsandbox/policy\t0.123s", nil, nil},
		{"empty", "", nil, nil},
		{"signature past MaxLine", strings.Repeat("x", MaxLine) + " /etc/x: Read-only file system", nil, nil},
		{"crlf", "touch: cannot touch '/etc/x': Read-only file system\r", nil, write("/etc/x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := facts()
			if tt.facts != nil {
				tt.facts(&f)
			}
			got, ok := Classify([]byte(tt.line), f)
			var gotp *Finding
			if ok {
				gotp = &got
			}
			if diff := cmp.Diff(gotp, tt.want); diff != "" {
				t.Errorf("Classify(%q) mismatch (-got +want):\n%s", tt.line, diff)
			}
		})
	}
}

func TestUnder(t *testing.T) {
	tests := []struct {
		p, root string
		want    bool
	}{
		{"/repo", "/repo", true},
		{"/repo/x", "/repo", true},
		{"/repo-evil", "/repo", false},
		{"/repo-evil/x", "/repo", false},
		{"/repo", "/repo-evil", false},
		{"/re", "/repo", false},
		{"/x", "/", true},
		{"/", "/", true},
	}
	for _, tt := range tests {
		if got := policy.Within(tt.p, tt.root); got != tt.want {
			t.Errorf("policy.Within(%q, %q) = %v, want %v", tt.p, tt.root, got, tt.want)
		}
	}
}

func TestSignaturesFeedThePrefilter(t *testing.T) {
	for _, s := range signatures {
		if len(s.text) < 14 {
			t.Errorf("signature %q is shorter than 14 bytes: the prefilter would jump less", s.text)
		}
		if keys.index([]byte("some text "+s.text+" more")) != len("some text ") {
			t.Errorf("prefilter misses %q", s.text)
		}
	}
}

// TestClassifyUnix: a refused unix socket is its own kind, where Landlock
// refuses the connect (EACCES, EPERM) as where seccomp refuses the socket;
// under --network deny a bare socket error stays the network's.
func TestClassifyUnix(t *testing.T) {
	allow := Facts{UnixDeny: true, Cwd: "/home/u/proj", Writable: []string{"/home/u/proj"}}
	deny := allow
	deny.NetworkDeny = true
	tests := []struct {
		line string
		f    Facts
		want Kind
	}{
		{"dial unix /run/docker.sock: connect: permission denied", allow, KindUnix},
		{"dial unix @/tmp/dbus-x: connect: operation not permitted", deny, KindUnix},
		{"error connecting to /tmp/tmux-0/default (Permission denied)", allow, KindUnix},
		{"PermissionError: [Errno 1] Operation not permitted", allow, KindUnix},
		{"PermissionError: [Errno 1] Operation not permitted", deny, KindNetwork},
		{"cp: cannot create regular file '/etc/x.sock': Read-only file system", allow, KindWrite},
	}
	for _, tt := range tests {
		got, ok := Classify([]byte(tt.line), tt.f)
		if !ok || got.Kind != tt.want {
			t.Errorf("Classify(%q) = %v %v, want %v", tt.line, got.Kind, ok, tt.want)
		}
	}
	if _, ok := Classify([]byte("dial unix /run/x.sock: connect: permission denied"), Facts{}); ok {
		t.Errorf("a refused unix socket with unix sockets allowed is the socket's own business, not the sandbox's")
	}
}
