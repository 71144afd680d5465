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

// TestCStage2Errno: the C stage 2 spells every errno as errText does, and
// errText is Go's text for the errnos it names.
func TestCStage2Errno(t *testing.T) {
	if !cStage2() {
		t.Skip("C stage 2 not active")
	}
	named := 0
	for e := -1; e < 300; e++ {
		got, want := cErrno(e), errText(syscall.Errno(e))
		if got != want {
			t.Errorf("errno %d: C %q, Go %q", e, got, want)
		}
		if want != "errno "+strconv.Itoa(e) {
			named++
			if want != syscall.Errno(e).Error() {
				t.Errorf("errno %d: %q, Go's text is %q", e, want, syscall.Errno(e).Error())
			}
		}
	}
	if named != 12 {
		t.Errorf("%d errnos have a text, want 12", named)
	}
}

// TestCStage2Quote: the C quote is quote on arbitrary bytes (but NUL,
// which no argument holds).
func TestCStage2Quote(t *testing.T) {
	if !cStage2() {
		t.Skip("C stage 2 not active")
	}
	cases := []string{"", `"\`, "\x01\n\x1f\x7f ~", "/home/jos\u00e9\xff"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, rng.IntN(10))
		for i := range b {
			b[i] = byte(1 + rng.IntN(255))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := cQuote(s), quote(s); got != want {
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
	s := "landlock=" + string(c.Mode) + "\nabi=" + strconv.Itoa(c.ABI) +
		"\nnetwork=" + allowDeny(!c.NetworkDeny) + "\nunix=" + allowDeny(c.UnixSockets) + "\n"
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
	// The planned ABI and unix=.
	{"landlock=auto", "abi=7", "network=deny", "unix=deny", "--", "true"},
	{"unix=allow", "network=allow", "abi=0", "landlock=require", "writable=/a", "--", "true"},
	{"landlock=auto", "network=deny", "unix=deny", "--", "true"},
	{"landlock=auto", "abi=7", "network=deny", "--", "true"},
	{"landlock=auto", "abi=", "network=deny", "unix=deny", "--", "true"},
	{"landlock=auto", "abi=-1", "network=deny", "unix=deny", "--", "true"},
	{"landlock=auto", "abi=+7", "network=deny", "unix=deny", "--", "true"},
	{"landlock=auto", "abi=7 ", "network=deny", "unix=deny", "--", "true"},
	{"landlock=auto", "abi=9999", "network=deny", "unix=deny", "--", "true"},
	{"landlock=auto", "abi=10000", "network=deny", "unix=deny", "--", "true"},
	{"landlock=auto", "abi=99999999999999999999", "network=deny", "unix=deny", "--", "true"},
	{"landlock=auto", "abi=0007", "network=deny", "unix=deny", "--", "true"},
	{"landlock=auto", "abi=7", "abi=7", "network=deny", "unix=deny", "--", "true"},
	{"landlock=auto", "abi=7", "network=deny", "unix=deny", "unix=deny", "--", "true"},
	{"landlock=auto", "abi=7", "network=deny", "unix=", "--", "true"},
	{"landlock=auto", "abi=7", "network=deny", "unix=Allow", "--", "true"},
	{"landlock=auto", "abi=7", "network=deny", "unix=allow\xff", "--", "true"},
	{"landlock=auto", "abi=7\xff", "network=deny", "unix=allow", "--", "true"},
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
func describeRules(args []string) (string, bool) {
	c, _, err := ParseArgs(args)
	if err != nil {
		return err.Error(), false
	}
	abi := c.ABI
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
		fmt.Fprintf(&b, "allow %s%s%s\n", quote(p.Path), cond, p.Access)
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
			for _, unix := range []bool{false, true} {
				for _, w := range writables {
					for abi := -1; abi <= 12; abi++ {
						c := Config{Mode: mode, NetworkDeny: deny, UnixSockets: unix, Writable: w, ABI: abi}
						args := c.Command("", []string{"true"})[2:]
						got, gotOK := cRules(args)
						want, wantOK := describeRules(args)
						if got != want || gotOK != wantOK {
							t.Errorf("%q:\nC:\n%s\nGo:\n%s", args, got, want)
						}
					}
				}
			}
		}
	}
}
