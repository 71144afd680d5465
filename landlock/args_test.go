package landlock

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestArgsRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		argv []string
	}{
		{"empty writable list", Config{Mode: ModeAuto}, []string{"true"}},
		{"require deny", Config{Mode: ModeRequire, NetworkDeny: true, Writable: []string{"/tmp", "/home/u/proj"}}, []string{"go", "test", "./..."}},
		{"path with spaces", Config{Mode: ModeAuto, Writable: []string{"/home/u/my proj", "/trailing space "}}, []string{"ls"}},
		{"-- inside a path", Config{Mode: ModeAuto, Writable: []string{"/a/--", "/--/b", "/x -- y"}}, []string{"ls"}},
		{"= and newline in a path", Config{Mode: ModeOff, Writable: []string{"/a=b", "/c\nd", "/writable=/e"}}, []string{"ls"}},
		{"command with --", Config{Mode: ModeAuto, NetworkDeny: true}, []string{"sh", "-c", "echo", "--", "landlock=off"}},
		{"command named --", Config{Mode: ModeAuto}, []string{"--", "--"}},
	}
	for _, tt := range tests {
		full := tt.c.Command("/proc/self/fd/7", tt.argv)
		if full[0] != "/proc/self/fd/7" || full[1] != Stage2Arg {
			t.Errorf("Command(%s) starts %q, want the exe and %q", tt.name, full[:2], Stage2Arg)
		}
		c, argv, err := ParseArgs(full[2:])
		if err != nil {
			t.Errorf("ParseArgs(%s): %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(c, tt.c); diff != "" {
			t.Errorf("ParseArgs(%s) config mismatch (-got +want):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(argv, tt.argv); diff != "" {
			t.Errorf("ParseArgs(%s) command mismatch (-got +want):\n%s", tt.name, diff)
		}
	}
}

func TestArgsEncoding(t *testing.T) {
	c := Config{Writable: []string{"/tmp", "/a b"}, NetworkDeny: true}
	want := []string{"landlock=auto", "abi=0", "network=deny", "unix=deny", "writable=/tmp", "writable=/a b"}
	if diff := cmp.Diff(c.Args(), want); diff != "" {
		t.Errorf("Args mismatch (-got +want):\n%s", diff)
	}
}

func TestParseArgsRejects(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"nothing", nil, `no "--" before the command`},
		{"no separator", []string{"landlock=auto", "network=deny", "true"}, `unknown argument "true"`},
		{"no command", []string{"landlock=auto", "abi=6", "network=deny", "unix=deny", "--"}, "no command"},
		{"no mode", []string{"network=deny", "--", "true"}, "no landlock= argument"},
		{"no abi", []string{"landlock=auto", "network=deny", "unix=deny", "--", "true"}, "no abi= argument"},
		{"no network", []string{"landlock=auto", "abi=6", "--", "true"}, "no network= argument"},
		{"no unix", []string{"landlock=auto", "abi=6", "network=deny", "--", "true"}, "no unix= argument"},
		{"bad abi", []string{"landlock=auto", "abi=07a", "--", "true"}, `abi="07a": must be a Landlock ABI version`},
		{"huge abi", []string{"landlock=auto", "abi=99999", "--", "true"}, `abi="99999": must be a Landlock ABI version`},
		{"abi twice", []string{"landlock=auto", "abi=1", "abi=1", "--", "true"}, "abi= given twice"},
		{"bad unix", []string{"landlock=auto", "unix=yes", "--", "true"}, `unix="yes": must be allow or deny`},
		{"empty mode", []string{"landlock=", "network=deny", "--", "true"}, "landlock= is empty"},
		{"bad mode", []string{"landlock=maybe", "network=deny", "--", "true"}, `--landlock "maybe"`},
		{"mode twice", []string{"landlock=require", "landlock=off", "network=deny", "--", "true"}, "landlock= given twice"},
		{"network twice", []string{"landlock=auto", "network=deny", "network=allow", "--", "true"}, "network= given twice"},
		{"bad network", []string{"landlock=auto", "network=", "--", "true"}, `network="": must be allow or deny`},
		{"relative root", []string{"landlock=auto", "network=deny", "writable=proj", "--", "true"}, `writable root "proj": not an absolute path`},
		{"empty root", []string{"landlock=auto", "network=deny", "writable=", "--", "true"}, `writable root "": not an absolute path`},
		{"unknown key", []string{"landlock=auto", "network=deny", "hide=/x", "--", "true"}, `unknown argument "hide=/x"`},
	}
	for _, tt := range tests {
		_, _, err := ParseArgs(tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "stage 2: ") {
			t.Errorf("ParseArgs(%s) error = %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func FuzzParseArgs(f *testing.F) {
	f.Add("landlock=auto\x00network=deny\x00writable=/a\x00--\x00true")
	f.Add("--")
	f.Fuzz(func(t *testing.T, s string) {
		c, argv, err := ParseArgs(strings.Split(s, "\x00"))
		if err != nil {
			return
		}
		// Whatever parses must survive a round trip unchanged.
		c2, argv2, err := ParseArgs(c.Command("x", argv)[2:])
		if err != nil {
			t.Fatalf("round trip of %q: %v", s, err)
		}
		if !cmp.Equal(c, c2) || !cmp.Equal(argv, argv2) {
			t.Fatalf("round trip of %q changed it: %#v %q -> %#v %q", s, c, argv, c2, argv2)
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
