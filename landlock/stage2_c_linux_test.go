//go:build cgo

package landlock

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"
)

// In a cgo test binary the C constructor must take every stage-2 run:
// reaching Go with Stage2Arg means it did not, and the stage-2 tests would
// be testing the Go stage 2 instead.
func init() {
	if len(os.Args) > 1 && os.Args[1] == Stage2Arg && cStage2() {
		os.Stderr.WriteString("zsandbox: error: the C stage 2 did not take over " + Stage2Arg + "\n")
		os.Exit(99)
	}
}

// TestCStage2Active: on glibc amd64 and arm64 a cgo build runs stage 2 in C
// unless built with -tags zsandbox_gostage2.
func TestCStage2Active(t *testing.T) {
	tagged := false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" && strings.Contains(","+s.Value+",", ",zsandbox_gostage2,") {
				tagged = true
			}
		}
	}
	want := (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") && !tagged
	if got := cStage2(); got != want {
		t.Errorf("C stage 2 active = %v, want %v (GOARCH %s, zsandbox_gostage2 %v)", got, want, runtime.GOARCH, tagged)
	}
}

// TestCStage2Tables: the generated tables are the running Go's: every
// errno text and every printable rune (else: go generate ./landlock).
func TestCStage2Tables(t *testing.T) {
	if !cStage2() {
		t.Skip("C stage 2 not active")
	}
	for e := 0; e < 300; e++ {
		if got, want := cErrno(e), syscall.Errno(e).Error(); got != want {
			t.Errorf("errno %d: C %q, Go %q", e, got, want)
		}
	}
	bitmap := make([]byte, (utf8.MaxRune+1)/8)
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if strconv.IsPrint(r) {
			bitmap[r/8] |= 1 << (r % 8)
		}
	}
	if r := cPrintMismatch(bitmap); r >= 0 {
		t.Errorf("IsPrint(%U): C and Go disagree", r)
	}
}

// TestCStage2Quote: the C %q is strconv.Quote on arbitrary bytes.
func TestCStage2Quote(t *testing.T) {
	cases := []string{
		"", "abc", `"\`, "\x00\x01\x1f\x7f", "\a\b\f\n\r\t\v", "/home/josé/my proj", "\u00a0\u00ad\u0085",
		"\u200b\ufeff\u2028", "\U0001F600\U000E0001\U0010FFFF", "\xff", "\xc0\x80", "\xc2", "\xe0\x80\x80",
		"\xed\xa0\x80", "\xed\x9f\xbf", "\xf4\x90\x80\x80", "\xf4\x8f\xbf\xbf", "\xef\xbf\xbd", "\xe2\x82",
		"\xf0\x9f\x98", "a\xffb\xfe", "writable=/x -- y",
	}
	// Random strings: bytes that stress the UTF-8 decoder, and whole runes.
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []byte{0, 1, '"', '\\', 'a', 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff}
	for range 20000 {
		var b []byte
		for range rng.IntN(10) {
			if rng.IntN(2) == 0 {
				b = append(b, pieces[rng.IntN(len(pieces))])
			} else {
				b = utf8.AppendRune(b, rune(rng.IntN(utf8.MaxRune+1)))
			}
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := cQuote(s), fmt.Sprintf("%q", s); got != want {
			t.Errorf("quote %x: C %s, Go %s", s, got, want)
		}
	}
}

// describeParse is the Go side of cParseArgs.
func describeParse(args []string) (string, bool) {
	c, argv, err := ParseArgs(args)
	if err != nil {
		return err.Error(), false
	}
	net := "allow"
	if c.NetworkDeny {
		net = "deny"
	}
	s := "landlock=" + string(c.Mode) + "\nnetwork=" + net + "\n"
	for _, w := range c.Writable {
		s += keyWritable + w + "\n"
	}
	return s + "command=" + strconv.Itoa(len(args)-len(argv)) + "\n", true
}

// stage2ArgCases are stage-2 argument lists, good and bad.
var stage2ArgCases = [][]string{
	nil,
	{"--"},
	{"--", "true"},
	{"landlock=auto", "network=deny", "true"},
	{"landlock=auto", "network=deny", "--"},
	{"network=deny", "--", "true"},
	{"landlock=auto", "--", "true"},
	{"landlock=", "network=deny", "--", "true"},
	{"landlock=maybe", "network=deny", "--", "true"},
	{"landlock=Auto", "network=deny", "--", "true"},
	{"landlock=auto\xff\n\u200b", "network=deny", "--", "true"},
	{"landlock=require", "landlock=off", "network=deny", "--", "true"},
	{"landlock=", "landlock=", "network=deny", "--", "true"},
	{"landlock=auto", "network=deny", "network=allow", "--", "true"},
	{"landlock=auto", "network=", "--", "true"},
	{"landlock=auto", "network=none\t", "--", "true"},
	{"landlock=auto", "network=deny", "writable=proj", "--", "true"},
	{"landlock=auto", "network=deny", "writable=", "--", "true"},
	{"landlock=auto", "network=deny", "writable=\xff/x", "--", "true"},
	{"landlock=auto", "network=deny", "hide=/x", "--", "true"},
	{"landlock=auto", "network=deny", "", "--", "true"},
	{"landlock=auto", "network=deny", "-- ", "--", "true"},
	{"landlock=auto", "network=deny", "Landlock=auto", "--", "true"},
	{"landlock", "network=deny", "--", "true"},
	{"network=deny", "writable=/a", "landlock=off", "--", "--", "--"},
	{"landlock=auto", "network=allow", "--", ""},
	{"landlock=require", "network=deny", "writable=/a b", "writable=/a=b", "writable=/c\nd", "writable=/--", "--", "go", "test"},
	{"landlock=off", "network=allow", "writable=/", "writable=/", "--", "sh", "-c", "echo", "--", "landlock=off"},
}

// TestCStage2ParseArgs: the C parser accepts and rejects what ParseArgs
// does, with the same messages.
func TestCStage2ParseArgs(t *testing.T) {
	if !cStage2() {
		t.Skip("C stage 2 not active")
	}
	for _, args := range stage2ArgCases {
		got, gotOK := cParseArgs(args)
		want, wantOK := describeParse(args)
		if got != want || gotOK != wantOK {
			t.Errorf("%q:\nC:  %v %q\nGo: %v %q", args, gotOK, got, wantOK, want)
		}
	}
}

// describeRules is the Go side of cRules: Rules and Check for the parsed
// arguments.
func describeRules(args []string, abi int) (string, bool) {
	c, _, err := ParseArgs(args)
	if err != nil {
		return err.Error(), false
	}
	rs := Rules(c, abi)
	var b strings.Builder
	fmt.Fprintf(&b, "status=%s\nabi=%d\nrequired=%d\nfs=%s\nnet=%02x\nscoped=%02x\n",
		rs.Status, rs.ABI, rs.RequiredABI, rs.HandledFS, uint64(rs.HandledNet), uint64(rs.Scoped))
	if re, ok := Check(c, abi).(*RequireError); ok {
		fmt.Fprintf(&b, "error=%s\nhint=%s\n", re.Error(), re.Hint())
	}
	for _, p := range rs.Paths {
		cond := ": "
		if p.IfExists {
			cond = " if-exists: "
		}
		fmt.Fprintf(&b, "allow %q%s%s\n", p.Path, cond, p.Access)
	}
	return b.String(), true
}

// TestCStage2Rules: for every mode, network setting and ABI from none to
// beyond the newest known, the C stage 2 plans what Rules and Check do:
// handled rights, scopes, the merged path rules in order, and the require
// refusal's error and hint.
func TestCStage2Rules(t *testing.T) {
	if !cStage2() {
		t.Skip("C stage 2 not active")
	}
	writables := [][]string{
		nil,
		{"/home/u/proj"},
		{"/tmp", "/home/u/proj", "/var/tmp"},
		{"/"},                             // merges with the read rule
		{"/dev/null", "/dev/shm", "/tmp"}, // merge with device rules: no longer if-exists
		{"/tmp", "/tmp", "/tmp/"},
		{"/a b", "/c\nd\xff", "/dev/pts"},
	}
	for _, mode := range []Mode{ModeAuto, ModeRequire, ModeOff} {
		for _, deny := range []bool{false, true} {
			for _, w := range writables {
				c := Config{Mode: mode, NetworkDeny: deny, Writable: w}
				args := c.Command("", []string{"true"})[2:]
				for abi := -1; abi <= 12; abi++ {
					got, gotOK := cRules(args, abi)
					want, wantOK := describeRules(args, abi)
					if got != want || gotOK != wantOK {
						t.Errorf("%q at ABI %d:\nC:\n%s\nGo:\n%s", args, abi, got, want)
					}
				}
			}
		}
	}
}
