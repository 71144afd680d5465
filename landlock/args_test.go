package landlock

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wire is what of a Ruleset the stage-2 line carries.
func wire(rs Ruleset) Ruleset {
	if rs.Status != StatusEnforced {
		return Ruleset{Status: StatusOff}
	}
	return Ruleset{ABI: rs.ABI, Status: StatusEnforced, HandledFS: rs.HandledFS, HandledNet: rs.HandledNet, Scoped: rs.Scoped, Paths: rs.Paths}
}

// TestArgsRoundTrip: the stage 2 reads exactly the ruleset the parent
// planned, whatever the paths hold.
func TestArgsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		argv []string
	}{
		{"empty writable list", Config{Mode: ModeAuto, ABI: 6}, []string{"true"}},
		{"require deny", Config{Mode: ModeRequire, ABI: 10, NetworkDeny: true, Writable: []string{"/tmp", "/home/u/proj"}}, []string{"go", "test", "./..."}},
		{"path with spaces and commas", Config{Mode: ModeAuto, ABI: 9, Writable: []string{"/home/u/my proj", "/a,e,/b", "/trailing space "}}, []string{"ls"}},
		{"-- inside a path", Config{Mode: ModeAuto, ABI: 7, Writable: []string{"/a/--", "/--/b", "/x -- y"}}, []string{"ls"}},
		{"= and newline in a path", Config{Mode: ModeAuto, ABI: 3, Writable: []string{"/a=b", "/c\nd", "/rule=/e"}}, []string{"ls"}},
		{"off", Config{Mode: ModeOff, ABI: 7, Writable: []string{"/a"}}, []string{"ls"}},
		{"no Landlock", Config{Mode: ModeAuto}, []string{"ls"}},
		{"command with --", Config{Mode: ModeAuto, ABI: 7, NetworkDeny: true}, []string{"sh", "-c", "echo", "--", "abi=0"}},
		{"command named --", Config{Mode: ModeAuto, ABI: 7}, []string{"--", "--"}},
	}
	for _, tt := range tests {
		full := tt.c.Command("/proc/self/fd/7", tt.argv)
		if full[0] != "/proc/self/fd/7" || full[1] != Stage2Arg {
			t.Errorf("Command(%s) starts %q, want the exe and %q", tt.name, full[:2], Stage2Arg)
		}
		rs, argv, err := ParseArgs(full[2:])
		if err != nil {
			t.Errorf("ParseArgs(%s): %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(rs, wire(Rules(tt.c, tt.c.ABI))); diff != "" {
			t.Errorf("ParseArgs(%s) ruleset mismatch (-got +want):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(argv, tt.argv); diff != "" {
			t.Errorf("ParseArgs(%s) command mismatch (-got +want):\n%s", tt.name, diff)
		}
	}
}

// TestArgsEncoding: the exact numbers of a planned ruleset.
func TestArgsEncoding(t *testing.T) {
	rs := Rules(Config{Mode: ModeRequire, ABI: 6, Writable: []string{"/a b"}, NetworkDeny: true}, 6)
	want := []string{"abi=6", "fs=ffff", "net=3", "scope=3", "rule=d,,/", "rule=ffff,e,/a b",
		"rule=c002,i,/dev/null", "rule=c002,i,/dev/zero", "rule=c002,i,/dev/full", "rule=c002,i,/dev/tty",
		"rule=c002,i,/dev/ptmx", "rule=c002,i,/dev/pts", "rule=ffff,i,/dev/shm"}
	if diff := cmp.Diff(rs.Args(), want); diff != "" {
		t.Errorf("Args mismatch (-got +want):\n%s", diff)
	}
	off := Rules(Config{Mode: ModeOff}, 6)
	if diff := cmp.Diff(off.Args(), []string{"abi=0", "fs=0", "net=0", "scope=0"}); diff != "" {
		t.Errorf("Args(off) mismatch (-got +want):\n%s", diff)
	}
	refused := Rules(Config{Mode: ModeRequire}, 0)
	if _, _, err := ParseArgs(append(refused.Args(), "--", "true")); err == nil {
		t.Errorf("a refused ruleset parses: %q", refused.Args())
	}
}

func TestParseArgsRejects(t *testing.T) {
	head := []string{"abi=6", "fs=ffff", "net=3", "scope=3"}
	with := func(extra ...string) []string { return append(append([]string{}, head...), extra...) }
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"nothing", nil, `no "--" before the command`},
		{"no separator", with("true"), `unknown argument "true"`},
		{"no command", with("--"), "no command"},
		{"no abi", []string{"fs=1", "net=0", "scope=0", "--", "true"}, "no abi= argument"},
		{"no fs", []string{"abi=1", "net=0", "scope=0", "--", "true"}, "no fs= argument"},
		{"no net", []string{"abi=1", "fs=1", "scope=0", "--", "true"}, "no net= argument"},
		{"no scope", []string{"abi=1", "fs=1", "net=0", "--", "true"}, "no scope= argument"},
		{"bad abi", []string{"abi=07a", "--", "true"}, `abi="07a": must be a Landlock ABI version`},
		{"huge abi", []string{"abi=99999", "--", "true"}, `abi="99999": must be a Landlock ABI version`},
		{"abi twice", []string{"abi=1", "abi=1", "--", "true"}, "abi= given twice"},
		{"fs twice", with("fs=1", "--", "true"), "fs= given twice"},
		{"hex prefix", []string{"abi=1", "fs=0x1", "--", "true"}, `fs="0x1": must be a hexadecimal number`},
		{"upper-case hex", []string{"abi=1", "net=A", "--", "true"}, `net="A": must be a hexadecimal number`},
		{"hex too long", []string{"abi=1", "scope=00000000000000000", "--", "true"}, `scope="00000000000000000": must be a hexadecimal number`},
		{"abi 0 with a rule", []string{"abi=0", "fs=0", "net=0", "scope=0", "rule=1,,/", "--", "true"}, "abi=0 with rights or rules"},
		{"relative rule", with("rule=7,e,proj", "--", "true"), `rule="7,e,proj": must be ACCESS,FLAGS,/PATH`},
		{"flags out of order", with("rule=7,ie,/a", "--", "true"), `rule="7,ie,/a": must be ACCESS,FLAGS,/PATH`},
		{"unknown flag", with("rule=7,x,/a", "--", "true"), `must be ACCESS,FLAGS,/PATH`},
		{"no flags field", with("rule=7,/a", "--", "true"), `must be ACCESS,FLAGS,/PATH`},
		{"empty access", with("rule=,,/a", "--", "true"), `must be ACCESS,FLAGS,/PATH`},
		{"refused", []string{"refused", "--", "true"}, `unknown argument "refused"`},
		{"old format", []string{"landlock=auto", "--", "true"}, `unknown argument "landlock=auto"`},
	}
	for _, tt := range tests {
		_, _, err := ParseArgs(tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "stage 2: ") {
			t.Errorf("ParseArgs(%s) error = %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func FuzzParseArgs(f *testing.F) {
	f.Add("abi=6\x00fs=ffff\x00net=3\x00scope=3\x00rule=ffff,ei,/a\x00--\x00true")
	f.Add("--")
	f.Fuzz(func(t *testing.T, s string) {
		rs, argv, err := ParseArgs(strings.Split(s, "\x00"))
		if err != nil {
			return
		}
		// Whatever parses must survive a round trip unchanged.
		rs2, argv2, err := ParseArgs(rs.Command("x", argv)[2:])
		if err != nil {
			t.Fatalf("round trip of %q: %v", s, err)
		}
		if !cmp.Equal(rs, rs2) || !cmp.Equal(argv, argv2) {
			t.Fatalf("round trip of %q changed it: %#v %q -> %#v %q", s, rs, argv, rs2, argv2)
		}
	})
}

// TestQuote: stage 2's quoting (its C twin is held to it by
// TestCStage2Quote).
func TestQuote(t *testing.T) {
	for s, want := range map[string]string{
		"":                    `""`,
		"/home/u/my proj":     `"/home/u/my proj"`,
		`a"b\c`:               `"a\"b\\c"`,
		"\x01\n\x1f\x7f ~":    `"\x01\x0a\x1f\x7f ~"`,
		"/home/jos\u00e9\xff": `"/home/jos\xc3\xa9\xff"`,
	} {
		if got := quote(s); got != want {
			t.Errorf("quote(%q) = %s, want %s", s, got, want)
		}
	}
}
