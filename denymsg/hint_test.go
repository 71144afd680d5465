package denymsg

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHint(t *testing.T) {
	const (
		roots = "writes are allowed only under /home/u/proj, /tmp, /var/tmp; add --writable PATH (or ZSANDBOX_WRITABLE) to allow more"
		netw  = prefix + "network is off (--network deny); rerun with --network allow to allow it"
	)
	tests := []struct {
		name     string
		findings []*Finding
		facts    func(*Facts)
		exit     Exit
		want     []string
	}{
		{"success says nothing", []*Finding{write("/etc/x"), net}, nil, Exit{}, nil},
		{"failure without a denial", nil, nil, Exit{Code: 1}, nil},
		{"write with path", []*Finding{write("/etc/x")}, nil, Exit{Code: 1},
			[]string{prefix + "/etc/x is outside the writable roots; " + roots}},
		{"write without path", []*Finding{write("")}, nil, Exit{Code: 2},
			[]string{prefix + roots}},
		{"first path named, others counted", []*Finding{write(""), write("/etc/a"), write("/etc/b")}, nil, Exit{Code: 1},
			[]string{prefix + "/etc/a and other paths are outside the writable roots; " + roots}},
		{"no writable roots", []*Finding{write("/etc/x")}, func(f *Facts) { f.Writable = nil }, Exit{Code: 1},
			[]string{prefix + "/etc/x is outside the writable roots; no path is writable; add --writable PATH (or ZSANDBOX_WRITABLE) to allow writes"}},
		{"many roots", []*Finding{write("")}, func(f *Facts) {
			f.Writable = strings.Split("/a /b /c /d /e /f /g /h /i /j", " ")
		}, Exit{Code: 1},
			[]string{prefix + "writes are allowed only under /a, /b, /c, /d, /e, /f, /g, /h and 2 more; add --writable PATH (or ZSANDBOX_WRITABLE) to allow more"}},
		{"hidden names the entry, never the path", []*Finding{hidden("/home/u/.ssh/id_rsa-SECRET", "/home/u/.ssh")}, nil, Exit{Code: 1},
			[]string{prefix + "/home/u/.ssh is hidden by the sandbox on purpose (credentials)"}},
		{"hidden entries listed once", []*Finding{
			hidden("/home/u/.ssh/a", "/home/u/.ssh"), hidden("/home/u/.netrc", "/home/u/.netrc"), hidden("/home/u/.ssh/b", "/home/u/.ssh"),
		}, nil, Exit{Code: 1},
			[]string{prefix + "/home/u/.ssh and /home/u/.netrc are hidden by the sandbox on purpose (credentials)"}},
		{"many hidden entries", []*Finding{
			hidden("", "/a"), hidden("", "/b"), hidden("", "/c"), hidden("", "/d"), hidden("", "/e"),
		}, nil, Exit{Code: 1},
			[]string{prefix + "/a, /b, /c and 2 more are hidden by the sandbox on purpose (credentials)"}},
		{"protected", []*Finding{protected("/home/u/proj/.git/hooks/pre-commit", "/home/u/proj/.git/hooks")}, nil, Exit{Code: 1},
			[]string{prefix + "/home/u/proj/.git/hooks is protected (read-only inside the sandbox so code planted there cannot run later outside it); name it with --writable PATH to make it writable"}},
		{"two protected", []*Finding{protected("", "/r/.git/hooks"), protected("", "/r/.git/config")}, nil, Exit{Code: 1},
			[]string{prefix + "/r/.git/hooks and /r/.git/config are protected (read-only inside the sandbox so code planted there cannot run later outside it); name one with --writable PATH to make it writable"}},
		{"protected says what it is for", []*Finding{protected("/r/.claude/settings.json", "/r/.claude")}, func(f *Facts) {
			f.Purpose = map[string]string{"/r/.claude": "Claude Code's project settings: hooks and commands it runs"}
		}, Exit{Code: 1},
			[]string{prefix + "/r/.claude is protected (Claude Code's project settings: hooks and commands it runs; read-only inside the sandbox so code planted there cannot run later outside it); name it with --writable PATH to make it writable"}},
		{"two protected, each with what it is for", []*Finding{protected("", "/r/.git/hooks"), protected("", "/r/.envrc")}, func(f *Facts) {
			f.Purpose = map[string]string{"/r/.git/hooks": "git hooks", "/r/.envrc": "direnv runs it"}
		}, Exit{Code: 1},
			[]string{prefix + "/r/.git/hooks (git hooks) and /r/.envrc (direnv runs it) are protected (read-only inside the sandbox so code planted there cannot run later outside it); name one with --writable PATH to make it writable"}},
		{"network", []*Finding{net, net}, nil, Exit{Code: 6}, []string{netw}},
		{"killed by SIGSYS", nil, nil, Exit{Code: 159, Signal: 31},
			[]string{prefix + "the command was killed by the sandbox's system-call filter (SIGSYS)"}},
		{"exit 159 from a shell", nil, nil, Exit{Code: 159},
			[]string{prefix + "a process was killed by the sandbox's system-call filter (SIGSYS)"}},
		{"Bad system call printed", []*Finding{seccomp}, nil, Exit{Code: 1},
			[]string{prefix + "a process was killed by the sandbox's system-call filter (SIGSYS)"}},
		{"other signals", nil, nil, Exit{Code: 137, Signal: 9}, nil},
		{"fixed order, one line per kind", []*Finding{seccomp, net, write("/etc/x"), protected("", "/p"), hidden("", "/h"), write("/etc/y")}, nil, Exit{Code: 1},
			[]string{
				prefix + "/h is hidden by the sandbox on purpose (credentials)",
				prefix + "/p is protected (read-only inside the sandbox so code planted there cannot run later outside it); name it with --writable PATH to make it writable",
				prefix + "/etc/x and other paths are outside the writable roots; " + roots,
				netw,
				prefix + "a process was killed by the sandbox's system-call filter (SIGSYS)",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := facts()
			if tt.facts != nil {
				tt.facts(&f)
			}
			var fs []Finding
			for _, x := range tt.findings {
				fs = append(fs, *x)
			}
			if diff := cmp.Diff(Hint(fs, f, tt.exit), tt.want); diff != "" {
				t.Errorf("Hint(%s) mismatch (-got +want):\n%s", tt.name, diff)
			}
		})
	}
}

func TestShow(t *testing.T) {
	long := "/" + strings.Repeat("é", 300)
	tests := []struct{ name, in, want string }{
		{"plain", "/etc/x", "/etc/x"},
		{"spaces stay", "/etc/a b", "/etc/a b"},
		{"newline quoted", "/etc/a\nb", `"/etc/a\nb"`},
		{"terminal escape quoted", "/etc/\x1b[31mred", `"/etc/\x1b[31mred"`},
		{"bidi override quoted", "/etc/\u202etxt.exe", `"/etc/\u202etxt.exe"`},
		{"invalid utf-8 quoted", "/etc/\xff", `"/etc/\xff"`},
		{"long path elided on rune boundaries", long, "/" + strings.Repeat("é", 48) + "..." + strings.Repeat("é", 49)},
	}
	for _, tt := range tests {
		if got := show(tt.in); got != tt.want {
			t.Errorf("show(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
