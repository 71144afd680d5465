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
	rs, argv, err := ParseArgs(args)
	if err != nil {
		return err.Error(), false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "abi=%d\nfs=%016x\nnet=%016x\nscope=%016x\n", rs.ABI, uint64(rs.HandledFS), uint64(rs.HandledNet), uint64(rs.Scoped))
	for _, p := range rs.Paths {
		fmt.Fprintf(&b, "rule %016x", uint64(p.Access))
		for _, f := range []struct {
			on   bool
			name string
		}{{p.Exact, " exact"}, {p.IfExists, " if-exists"}, {p.NoFollow, " no-follow"}} {
			if f.on {
				b.WriteString(f.name)
			}
		}
		fmt.Fprintf(&b, " %s\n", quote(p.Path))
	}
	for _, p := range rs.Ports {
		fmt.Fprintf(&b, "port %016x %d\n", uint64(p.Access), p.Port)
	}
	fmt.Fprintf(&b, "command=%d\n", len(args)-len(argv))
	return b.String(), true
}

// stage2ArgCases are stage-2 argument lists, good and bad.
var stage2ArgCases = [][]string{
	nil,
	{"abi=4", "fs=0", "net=2", "scope=0", "port=2,3128", "--", "true"},
	{"abi=4", "fs=0", "net=2", "scope=0", "port=2,3128", "port=2,1", "port=2,65535", "--", "true"},
	{"abi=4", "fs=0", "net=2", "scope=0", "port=2,0", "--", "true"},
	{"abi=4", "fs=0", "net=2", "scope=0", "port=2,65536", "--", "true"},
	{"abi=4", "fs=0", "net=2", "scope=0", "port=2,123456", "--", "true"},
	{"abi=4", "fs=0", "net=2", "scope=0", "port=2,", "--", "true"},
	{"abi=4", "fs=0", "net=2", "scope=0", "port=,80", "--", "true"},
	{"abi=4", "fs=0", "net=2", "scope=0", "port=2,+80", "--", "true"},
	{"abi=4", "fs=0", "net=2", "scope=0", "port=2,80x", "--", "true"},
	{"abi=4", "fs=0", "net=2", "scope=0", "port=2", "--", "true"},
	{"abi=4", "fs=0", "net=2", "scope=0", "port=G,80", "--", "true"},
	{"abi=0", "fs=0", "net=0", "scope=0", "port=2,80", "--", "true"},
	{"--"},
	{"--", "true"},
	{"abi=0", "fs=0", "net=0", "scope=0", "--", "true"},
	{"abi=0", "fs=0", "net=0", "scope=0", "--"},
	{"abi=0", "fs=0", "net=0", "scope=0", "true"},
	{"scope=0", "net=0", "fs=0", "abi=0", "--", "--", "--"},
	{"abi=7", "fs=1ffff", "net=f", "scope=3", "rule=d,,/", "rule=ffff,e,/a b", "rule=c002,i,/dev/null", "rule=7,n,/x,y", "rule=1,ein,/,", "--", "go", "test"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=0,,/", "--", ""},
	{"abi=0", "fs=0", "net=0", "scope=0", "rule=1,,/", "--", "true"},
	{"abi=0", "fs=1", "net=0", "scope=0", "--", "true"},
	{"abi=0", "fs=0", "net=0", "scope=1", "--", "true"},
	{"fs=1", "net=0", "scope=0", "--", "true"},
	{"abi=1", "net=0", "scope=0", "--", "true"},
	{"abi=1", "fs=1", "scope=0", "--", "true"},
	{"abi=1", "fs=1", "net=0", "--", "true"},
	{"abi=", "fs=1", "net=0", "scope=0", "--", "true"},
	{"abi=-1", "fs=1", "net=0", "scope=0", "--", "true"},
	{"abi=+7", "fs=1", "net=0", "scope=0", "--", "true"},
	{"abi=7 ", "fs=1", "net=0", "scope=0", "--", "true"},
	{"abi=9999", "fs=1", "net=0", "scope=0", "--", "true"},
	{"abi=10000", "fs=1", "net=0", "scope=0", "--", "true"},
	{"abi=99999999999999999999", "--", "true"},
	{"abi=0007", "fs=1", "net=0", "scope=0", "--", "true"},
	{"abi=7", "abi=7", "--", "true"},
	{"abi=7\xff", "--", "true"},
	{"abi=7", "fs=", "--", "true"},
	{"abi=7", "fs=ffffffffffffffff", "net=0", "scope=0", "--", "true"},
	{"abi=7", "fs=10000000000000000", "--", "true"},
	{"abi=7", "fs=0x1", "--", "true"},
	{"abi=7", "fs=A", "--", "true"},
	{"abi=7", "fs=g", "--", "true"},
	{"abi=7", "fs=1", "fs=1", "--", "true"},
	{"abi=7", "net=1", "net=1", "--", "true"},
	{"abi=7", "scope=1", "scope=1", "--", "true"},
	{"abi=7", "fs=1\xff\u200b", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=1", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=1,", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=1,,", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=1,,rel", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=,,/", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=x,,/", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=1,ie,/", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=1,ee,/", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=1,E,/", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=1,e/", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=11111111111111111,,/", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "rule=1,,/\xff\n\"", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "landlock=auto", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "", "--", "true"},
	{"abi=7", "fs=1", "net=0", "scope=0", "-- ", "--", "true"},
	{"refused", "--", "true"},
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

// TestCStage2ReadsEveryPlan: for every mode, network setting and ABI from
// none to beyond the newest known, the C stage 2 reads the line the parent
// writes as the ruleset Rules planned: the handled rights, scopes and path
// rules in order (it plans nothing itself).
func TestCStage2ReadsEveryPlan(t *testing.T) {
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
		{"/a b", "/c\nd\xff", "/dev/pts", "/x,e,/y"},
	}
	for _, mode := range []Mode{ModeAuto, ModeRequire, ModeOff} {
		for _, net := range []struct {
			deny  bool
			proxy uint16
		}{{false, 0}, {true, 0}, {false, 3128}} {
			deny := net.deny
			for _, unix := range []bool{false, true} {
				for _, w := range writables {
					for abi := -1; abi <= 12; abi++ {
						c := Config{Mode: mode, NetworkDeny: deny, ProxyPort: net.proxy, UnixSockets: unix, Writable: w, ABI: abi}
						args := c.Command("", []string{"true"})[2:]
						got, gotOK := cParseArgs(args)
						want, wantOK := describeParse(args)
						if got != want || gotOK != wantOK {
							t.Errorf("%q:\nC:\n%s\nGo:\n%s", args, got, want)
						}
					}
				}
			}
		}
	}
}
