package landlock

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestCheckAlone: a hidden path that exists within a writable root cannot
// be enforced by Landlock rules, which only add up; nor can a root within
// a hidden path, or a root that would open /dev.
func TestCheckAlone(t *testing.T) {
	tests := []struct {
		name       string
		c          AloneConfig
		path, root string // the refusal; "" for none
	}{
		{"project under home", AloneConfig{Writable: []string{"/home/u/proj", "/tmp"}, Hidden: []string{"/home/u/.ssh"}}, "", ""},
		{"cwd is home", AloneConfig{Writable: []string{"/home/u", "/tmp"}, Hidden: []string{"/home/u/.ssh"}}, "/home/u/.ssh", "/home/u"},
		{"hidden file deep in a root", AloneConfig{Writable: []string{"/repo"}, Hidden: []string{"/repo/a/.env"}}, "/repo/a/.env", "/repo"},
		{"hidden path is the root", AloneConfig{Writable: []string{"/repo"}, Hidden: []string{"/repo"}}, "/repo", "/repo"},
		{"root inside a hidden path", AloneConfig{Writable: []string{"/home/u/.aws/cache"}, Hidden: []string{"/home/u/.aws"}}, "/home/u/.aws", "/home/u/.aws/cache"},
		{"shared string prefix only", AloneConfig{Writable: []string{"/repo"}, Hidden: []string{"/repo-evil/key", "/rep"}}, "", ""},
		{"missing hidden path in a root: the command could create it", AloneConfig{Writable: []string{"/home/u"}, HiddenMissing: []string{"/home/u/.config/zsandbox/settings.json"}}, "/home/u/.config/zsandbox/settings.json", "/home/u"},
		{"missing hidden path outside the roots", AloneConfig{Writable: []string{"/repo"}, HiddenMissing: []string{"/home/u/.aws"}}, "", ""},
		{"root is /", AloneConfig{Writable: []string{"/"}}, "/dev", "/"},
		{"root is /dev", AloneConfig{Writable: []string{"/dev"}}, "/dev", "/dev"},
		{"root is /dev/shm", AloneConfig{Writable: []string{"/dev/shm/build"}}, "", ""},
		{"root is a device directory", AloneConfig{Writable: []string{"/dev/input"}}, "/dev", "/dev/input"},
		{"root is /devices", AloneConfig{Writable: []string{"/devices"}}, "", ""},
		{"/ with a hidden path", AloneConfig{Writable: []string{"/"}, Hidden: []string{"/home/u/.ssh"}}, "/home/u/.ssh", "/"},
	}
	for _, tt := range tests {
		err := CheckAlone(tt.c)
		var ae *AloneError
		switch {
		case tt.path == "" && err != nil:
			t.Errorf("%s: CheckAlone = %v, want nil", tt.name, err)
		case tt.path != "" && !errors.As(err, &ae):
			t.Errorf("%s: CheckAlone = %v, want an *AloneError", tt.name, err)
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
		{&AloneError{Path: "/home/u/.ssh", Root: "/home/u"},
			`--backend landlock: hidden path "/home/u/.ssh" lies inside writable root "/home/u"; Landlock can only add access, so it cannot keep it hidden`,
			"run from a directory that does not contain /home/u/.ssh (--cwd), drop the --writable root that does, or use --backend bwrap where user namespaces work"},
		{&AloneError{Path: "/home/u/.aws", Root: "/home/u/.aws/cache"},
			`--backend landlock: writable root "/home/u/.aws/cache" lies inside hidden path "/home/u/.aws"`,
			"run from a directory that does not contain /home/u/.aws (--cwd), drop the --writable root that does, or use --backend bwrap where user namespaces work"},
		{&AloneError{Path: "/dev", Root: "/"},
			`--backend landlock: writable root "/" would open device files in /dev, which this backend keeps closed (only /dev/shm may be writable)`,
			"name a --writable root outside /dev"},
		{&AloneABIError{ABI: 0}, "--backend landlock: this kernel has no Landlock",
			"Landlock ABI 6 needs Linux 6.12 or newer with landlock in the lsm= boot parameter; or use --backend bwrap where user namespaces work"},
		{&AloneABIError{ABI: 4}, "--backend landlock: the kernel offers Landlock ABI 4, the backend needs ABI 6 (signal and abstract unix socket scoping)",
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

func aloneRulesFor(t *testing.T, c AloneConfig, abi int) Ruleset {
	t.Helper()
	rs, err := AloneRules(c, abi, aloneHost.exists, aloneHost.list)
	if err != nil {
		t.Fatalf("AloneRules(ABI %d): %v", abi, err)
	}
	return rs
}

// grants is what the rules allow on each path, by rights' names.
func grants(rs Ruleset) map[string]string {
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
	c := AloneConfig{Writable: []string{"/home/u/proj", "/tmp", "/var/tmp"}, Hidden: []string{"/home/u/.ssh", "/home/u/.netrc"}, NetworkDeny: true}
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
	deny := AloneConfig{Writable: []string{"/tmp"}, NetworkDeny: true}
	allow := AloneConfig{Writable: []string{"/tmp"}}
	unixOn := AloneConfig{Writable: []string{"/tmp"}, UnixSockets: true}
	all := scopeAbstractUnixSocket | scopeSignal
	tests := []struct {
		c       AloneConfig
		abi     int
		net     string
		resolve bool
		scoped  Scope
		gaps    int
	}{
		{deny, 6, "bind_tcp connect_tcp", false, all, 2},
		{deny, 9, "bind_tcp connect_tcp", true, all, 1},
		{deny, 10, "bind_tcp connect_tcp bind_udp connect_send_udp", true, all, 0},
		{allow, 6, "", false, all, 1},
		{allow, 9, "", true, all, 0},
		{unixOn, 9, "", false, scopeSignal, 0},
	}
	for _, tt := range tests {
		rs := aloneRulesFor(t, tt.c, tt.abi)
		if rs.HandledNet.String() != tt.net || (rs.HandledFS&fsResolveUnix != 0) != tt.resolve ||
			rs.Scoped != tt.scoped || len(rs.Gaps) != tt.gaps || rs.Status != StatusEnforced {
			t.Errorf("ABI %d, deny %v: net %q, fs %q, scoped %q, gaps %v, status %s",
				tt.abi, tt.c.NetworkDeny, rs.HandledNet, rs.HandledFS, rs.Scoped, rs.Gaps, rs.Status)
		}
		for _, p := range rs.Paths {
			if p.Access&fsResolveUnix != 0 {
				t.Errorf("ABI %d: %s grants resolve_unix", tt.abi, p.Path)
			}
		}
	}
}

// TestAloneRulesRefuse: no downgrade below ABI 6, and CheckAlone's refusals
// come first.
func TestAloneRulesRefuse(t *testing.T) {
	var abiErr *AloneABIError
	for _, abi := range []int{-1, 0, 1, 5} {
		if _, err := AloneRules(AloneConfig{Writable: []string{"/tmp"}}, abi, aloneHost.exists, aloneHost.list); !errors.As(err, &abiErr) || abiErr.ABI != max(abi, 0) {
			t.Errorf("ABI %d: %v, want *AloneABIError", abi, err)
		}
	}
	var ae *AloneError
	c := AloneConfig{Writable: []string{"/home/u"}, Hidden: []string{"/home/u/.ssh"}}
	if _, err := AloneRules(c, 0, aloneHost.exists, aloneHost.list); !errors.As(err, &ae) {
		t.Errorf("hidden in root: %v, want *AloneError", err)
	}
	if _, err := AloneRules(AloneConfig{Hidden: []string{"rel"}}, 7, aloneHost.exists, aloneHost.list); err == nil {
		t.Errorf("relative hidden path accepted")
	}
}

// TestAloneRulesMissingHidden: a hidden path that does not exist yet cuts
// its ancestors, so it is unreadable if it appears.
func TestAloneRulesMissingHidden(t *testing.T) {
	fs := tree("/home/u/proj/", "/home/u/.bashrc", "/tmp/", "/dev/null")
	rs, err := AloneRules(AloneConfig{Writable: []string{"/home/u/proj"}, HiddenMissing: []string{"/home/u/.aws"}}, 7, fs.exists, fs.list)
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
	c := AloneConfig{Writable: []string{"/home/u/proj", "/tmp"}, Hidden: []string{"/home/u/.ssh", "/home/u/.netrc"}, NetworkDeny: true}
	var b strings.Builder
	b.WriteString(aloneRulesFor(t, c, 7).String() + "\n\n")
	js, err := json.MarshalIndent(aloneRulesFor(t, c, 7).Paths[:3], "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b.Write(js)
	b.WriteString("\n\nwarning: " + AloneWarning() + "\n")
	for _, g := range AloneGaps() {
		b.WriteString("gap: " + g + "\n")
	}
	golden(t, "alone.golden", b.String())
}

// TestAloneGaps: the gap list and the warning are plain one-line texts that
// name what the backend does not do.
func TestAloneGaps(t *testing.T) {
	all := strings.Join(AloneGaps(), "\n")
	for _, w := range []string{"PID namespace", "protected paths", "chmod", "uid 0", "stat", "UDP", "System V IPC", "terminal"} {
		if !strings.Contains(all, w) {
			t.Errorf("AloneGaps does not mention %q", w)
		}
	}
	for _, g := range append(AloneGaps(), AloneWarning()) {
		if g == "" || strings.ContainsAny(g, "\n") || strings.HasSuffix(g, ".") {
			t.Errorf("not a one-line text without a final period: %q", g)
		}
	}
}
