package alone

import (
	"encoding/json"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
	"github.com/zsandbox/zsandbox/landlock"
)

// TestCheckAlone: a hidden path that exists within a writable root cannot
// be enforced by Landlock rules, which only add up; nor can a root within
// a hidden path, or a root that would open /dev.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestCheckAlone(t *testing.T) {
	tests := []struct {
		name       string
		c          Config
		path, root string // the refusal; "" for none
	}{
		{"project under home", Config{Writable: []string{"/home/u/proj", "/tmp"}, Hidden: []string{"/home/u/.ssh"}}, "", ""},
		{"cwd is home", Config{Writable: []string{"/home/u", "/tmp"}, Hidden: []string{"/home/u/.ssh"}}, "/home/u/.ssh", "/home/u"},
		{"hidden file deep in a root", Config{Writable: []string{"/repo"}, Hidden: []string{"/repo/a/.env"}}, "/repo/a/.env", "/repo"},
		{"hidden path is the root", Config{Writable: []string{"/repo"}, Hidden: []string{"/repo"}}, "/repo", "/repo"},
		{"root inside a hidden path", Config{Writable: []string{"/home/u/.aws/cache"}, Hidden: []string{"/home/u/.aws"}}, "/home/u/.aws", "/home/u/.aws/cache"},
		{"shared string prefix only", Config{Writable: []string{"/repo"}, Hidden: []string{"/repo-evil/key", "/rep"}}, "", ""},
		{"missing hidden path in a root: the command could create it", Config{Writable: []string{"/home/u"}, HiddenMissing: []string{"/home/u/.config/zsandbox/settings.json"}}, "/home/u/.config/zsandbox/settings.json", "/home/u"},
		{"missing hidden path outside the roots", Config{Writable: []string{"/repo"}, HiddenMissing: []string{"/home/u/.aws"}}, "", ""},
		{"root is /", Config{Writable: []string{"/"}}, "/dev", "/"},
		{"root is /dev", Config{Writable: []string{"/dev"}}, "/dev", "/dev"},
		{"root is /dev/shm", Config{Writable: []string{"/dev/shm/build"}}, "", ""},
		{"root is a device directory", Config{Writable: []string{"/dev/input"}}, "/dev", "/dev/input"},
		{"root is /devices", Config{Writable: []string{"/devices"}}, "", ""},
		{"/ with a hidden path", Config{Writable: []string{"/"}, Hidden: []string{"/home/u/.ssh"}}, "/home/u/.ssh", "/"},
	}
	for _, tt := range tests {
		err := Check(tt.c)
		var ae *Error
		switch {
		case tt.path == "" && err != nil:
			t.Errorf("%s: Check = %v, want nil", tt.name, err)
		case tt.path != "" && !errors.As(err, &ae):
			t.Errorf("%s: Check = %v, want an *Error", tt.name, err)
		case tt.path != "" && (ae.Path != tt.path || ae.Root != tt.root):
			t.Errorf("%s: refused %q in %q, want %q in %q", tt.name, ae.Path, ae.Root, tt.path, tt.root)
		}
	}
}

func TestAloneErrorText(t *testing.T) {
	tests := []struct {
		err       interface{ Hint() string }
		msg, hint string
	}{
		{&Error{Path: "/home/u/.ssh", Root: "/home/u"},
			`--backend landlock: hidden path "/home/u/.ssh" lies inside writable root "/home/u"; Landlock can only add access, so it cannot keep it hidden`,
			"run from a directory that does not contain /home/u/.ssh (--cwd), drop the --writable root that does, or use --backend bwrap where user namespaces work"},
		{&Error{Path: "/home/u/.aws", Root: "/home/u/.aws/cache"},
			`--backend landlock: writable root "/home/u/.aws/cache" lies inside hidden path "/home/u/.aws"`,
			"run from a directory that does not contain /home/u/.aws (--cwd), drop the --writable root that does, or use --backend bwrap where user namespaces work"},
		{&Error{Path: "/dev", Root: "/"},
			`--backend landlock: writable root "/" would open device files in /dev, which this backend keeps closed (only /dev/shm may be writable)`,
			"name a --writable root outside /dev"},
		{&ABIError{ABI: 0}, "--backend landlock: this kernel has no Landlock",
			"Landlock ABI 6 needs Linux 6.12 or newer with landlock in the lsm= boot parameter; or use --backend bwrap where user namespaces work"},
		{&ABIError{ABI: 4}, "--backend landlock: the kernel offers Landlock ABI 4, the backend needs ABI 6 (signal and abstract unix socket scoping)",
			"Landlock ABI 6 needs Linux 6.12 or newer with landlock in the lsm= boot parameter; or use --backend bwrap where user namespaces work"},
	}
	for _, tt := range tests {
		msg := tt.err.(error).Error()
		if msg != tt.msg || tt.err.Hint() != tt.hint {
			t.Errorf("got\n %q\n %q\nwant\n %q\n %q", msg, tt.err.Hint(), tt.msg, tt.hint)
		}
	}
}

// aloneHost is a machine with credentials in a home, a project, and a /dev
// with the harmless devices and a few that must stay closed.
var aloneHost = tree("/bin/sh", "/etc/passwd", "/home/other/", "/home/u/.ssh/id_rsa", "/home/u/.netrc",
	"/home/u/.bashrc", "/home/u/proj/main.go", "/tmp/", "/var/tmp/",
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx",
	"/dev/pts/0", "/dev/shm/", "/dev/fd@", "/dev/stdin@", "/dev/vda", "/dev/kmsg", "/dev/mem", "/dev/disk/by-id/x@", "/dev/mqueue/")

func aloneRulesFor(t *testing.T, c Config, abi int) landlock.Ruleset {
	t.Helper()
	rs, err := Rules(c, abi, aloneHost.exists, aloneHost.list)
	if err != nil {
		t.Fatalf("Rules(ABI %d): %v", abi, err)
	}
	return rs
}

// grants is what the rules allow on each path, by rights' names.
func grants(rs landlock.Ruleset) map[string]string {
	out := map[string]string{}
	for _, p := range rs.Paths {
		out[p.Path] = p.Access.String()
	}
	return out
}

// TestAloneRules: hidden paths and every device but the harmless ones get
// no rule at all; their siblings are readable; only the writable roots and
// the harmless devices are writable.
func TestAloneRules(t *testing.T) {
	c := Config{Writable: []string{"/home/u/proj", "/tmp", "/var/tmp"}, Hidden: []string{"/home/u/.ssh", "/home/u/.netrc"}, NetworkDeny: true}
	rs := aloneRulesFor(t, c, 7)
	g := grants(rs)
	for _, p := range []string{"/", "/home", "/home/u", "/home/u/.ssh", "/home/u/.ssh/id_rsa", "/home/u/.netrc",
		"/dev", "/dev/vda", "/dev/kmsg", "/dev/mem", "/dev/disk", "/dev/mqueue", "/dev/fd", "/dev/stdin"} {
		if a, ok := g[p]; ok {
			t.Errorf("%s has a rule (%s), want none", p, a)
		}
	}
	read, readFile := "execute read_file read_dir", "execute read_file"
	rw := "execute write_file read_file read_dir remove_dir remove_file make_char make_dir make_reg make_sock make_fifo make_block make_sym refer truncate ioctl_dev"
	dev := "execute write_file read_file truncate ioctl_dev"
	want := map[string]string{
		"/bin": read, "/etc": read, "/home/other": read, "/home/u/.bashrc": readFile, "/var": read,
		"/home/u/proj": rw, "/tmp": rw,
		"/dev/null": dev, "/dev/zero": dev, "/dev/full": dev, "/dev/random": dev, "/dev/urandom": dev,
		"/dev/tty": dev, "/dev/ptmx": dev, "/dev/pts": "execute write_file read_file read_dir truncate ioctl_dev",
		"/dev/shm": rw,
	}
	for p, w := range want {
		if g[p] != w {
			t.Errorf("%s: %q, want %q", p, g[p], w)
		}
	}
	if _, ok := g["/var/tmp"]; !ok || len(rs.Paths) != len(want)+1 { // /var/tmp: rw, under /var's read
		t.Errorf("rules: %v", g)
	}
	for _, p := range rs.Paths {
		if p.Path == "/home/u/.bashrc" && !(p.IfExists && p.NoFollow) {
			t.Errorf("a listed path must be skipped when gone or turned into a symlink: %+v", p)
		}
		if p.Path == "/tmp" && (p.IfExists || p.NoFollow) {
			t.Errorf("a writable root must exist: %+v", p)
		}
	}
}

// TestAloneRulesNetwork: under deny, TCP is handled with no port allowed;
// in both modes pathname unix sockets (ABI 9) are handled with no rule
// granting them and abstract ones scoped, unless --allow-unix-sockets.
func TestAloneRulesNetwork(t *testing.T) {
	deny := Config{Writable: []string{"/tmp"}, NetworkDeny: true}
	allow := Config{Writable: []string{"/tmp"}}
	unixOn := Config{Writable: []string{"/tmp"}, UnixSockets: true}
	const all = "abstract_unix_socket signal"
	tests := []struct {
		c       Config
		abi     int
		net     string
		resolve bool
		scoped  string
		gaps    int
	}{
		{deny, 6, "bind_tcp connect_tcp", false, all, 2},
		{deny, 9, "bind_tcp connect_tcp", true, all, 1},
		{deny, 10, "bind_tcp connect_tcp bind_udp connect_send_udp", true, all, 0},
		{allow, 6, "", false, all, 1},
		{allow, 9, "", true, all, 0},
		{unixOn, 9, "", false, "signal", 0},
	}
	for _, tt := range tests {
		rs := aloneRulesFor(t, tt.c, tt.abi)
		if rs.HandledNet.String() != tt.net || (rs.HandledFS&landlock.AccessResolveUnix != 0) != tt.resolve ||
			rs.Scoped.String() != tt.scoped || len(rs.Gaps) != tt.gaps || rs.Status != landlock.StatusEnforced {
			t.Errorf("ABI %d, deny %v: net %q, fs %q, scoped %q, gaps %v, status %s",
				tt.abi, tt.c.NetworkDeny, rs.HandledNet, rs.HandledFS, rs.Scoped, rs.Gaps, rs.Status)
		}
		for _, p := range rs.Paths {
			if p.Access&landlock.AccessResolveUnix != 0 {
				t.Errorf("ABI %d: %s grants resolve_unix", tt.abi, p.Path)
			}
		}
	}
}

// TestAloneRulesRefuse: no downgrade below ABI 6, and Check's refusals
// come first.
func TestAloneRulesRefuse(t *testing.T) {
	var abiErr *ABIError
	for _, abi := range []int{-1, 0, 1, 5} {
		if _, err := Rules(Config{Writable: []string{"/tmp"}}, abi, aloneHost.exists, aloneHost.list); !errors.As(err, &abiErr) || abiErr.ABI != max(abi, 0) {
			t.Errorf("ABI %d: %v, want *ABIError", abi, err)
		}
	}
	var ae *Error
	c := Config{Writable: []string{"/home/u"}, Hidden: []string{"/home/u/.ssh"}}
	if _, err := Rules(c, 0, aloneHost.exists, aloneHost.list); !errors.As(err, &ae) {
		t.Errorf("hidden in root: %v, want *Error", err)
	}
	if _, err := Rules(Config{Hidden: []string{"rel"}}, 7, aloneHost.exists, aloneHost.list); err == nil {
		t.Errorf("relative hidden path accepted")
	}
}

// TestAloneRulesMissingHidden: a hidden path that does not exist yet cuts
// its ancestors, so it is unreadable if it appears.
func TestAloneRulesMissingHidden(t *testing.T) {
	fs := tree("/home/u/proj/", "/home/u/.bashrc", "/tmp/", "/dev/null")
	rs, err := Rules(Config{Writable: []string{"/home/u/proj"}, HiddenMissing: []string{"/home/u/.aws"}}, 7, fs.exists, fs.list)
	if err != nil {
		t.Fatal(err)
	}
	g := grants(rs)
	if _, ok := g["/home/u"]; ok {
		t.Errorf("/home/u has a rule: a later ~/.aws would be readable")
	}
	if _, ok := g["/home/u/.bashrc"]; !ok {
		t.Errorf("sibling /home/u/.bashrc not readable: %v", g)
	}
}

// TestAloneRulesGolden pins the explain text of a typical plan.
func TestAloneRulesGolden(t *testing.T) {
	c := Config{Writable: []string{"/home/u/proj", "/tmp"}, Hidden: []string{"/home/u/.ssh", "/home/u/.netrc"}, NetworkDeny: true}
	var b strings.Builder
	b.WriteString(aloneRulesFor(t, c, 7).String() + "\n\n")
	js, err := json.MarshalIndent(aloneRulesFor(t, c, 7).Paths[:3], "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b.Write(js)
	b.WriteString("\n\nwarning: " + Warning() + "\n")
	for _, g := range Gaps() {
		b.WriteString("gap: " + g + "\n")
	}
	harness.Golden(t, "rules.golden", b.String(), *update)
}

// TestAloneGaps: the gap list and the warning are plain one-line texts that
// name what the backend does not do.
func TestAloneGaps(t *testing.T) {
	all := strings.Join(Gaps(), "\n")
	for _, w := range []string{"PID namespace", "protected paths", "chmod", "uid 0", "stat", "UDP", "System V IPC", "terminal"} {
		if !strings.Contains(all, w) {
			t.Errorf("Gaps does not mention %q", w)
		}
	}
	for _, g := range append(Gaps(), Warning()) {
		if g == "" || strings.ContainsAny(g, "\n") || strings.HasSuffix(g, ".") {
			t.Errorf("not a one-line text without a final period: %q", g)
		}
	}
}
