package landlock

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zsandbox/zsandbox/internal/harness"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Spelled out per ABI so the test does not share the code's tables.
const (
	abi1FS = fsExecute | fsWriteFile | fsReadFile | fsReadDir | fsRemoveDir | fsRemoveFile |
		fsMakeChar | fsMakeDir | fsMakeReg | fsMakeSock | fsMakeFifo | fsMakeBlock | fsMakeSym
	abi3FS = abi1FS | fsRefer | fsTruncate
	abi5FS = abi3FS | fsIoctlDev
	read   = fsExecute | fsReadFile | fsReadDir
)

// paths is the expected allow list for one writable root /w.
func paths(root, dev AccessFS) []PathRule {
	return []PathRule{
		{Path: "/", Access: read},
		{Path: "/w", Access: root, Exact: true},
		{Path: "/dev/null", Access: dev, IfExists: true},
		{Path: "/dev/zero", Access: dev, IfExists: true},
		{Path: "/dev/full", Access: dev, IfExists: true},
		{Path: "/dev/tty", Access: dev, IfExists: true},
		{Path: "/dev/ptmx", Access: dev, IfExists: true},
		{Path: "/dev/pts", Access: dev, IfExists: true},
		{Path: "/dev/shm", Access: root, IfExists: true},
	}
}

var (
	gapWrite     = Protection{What: "writes outside the writable roots", ABI: 1, Required: true}
	gapTruncate  = Protection{What: "truncation of files outside the writable roots", ABI: 3, Required: true}
	gapTCP       = Protection{What: "TCP connect and bind", ABI: 4, Required: true}
	gapSignal    = Protection{What: "signals to processes outside the sandbox", ABI: 6, Required: true}
	gapAbstract  = Protection{What: "connections to abstract unix sockets outside the sandbox", ABI: 6, Required: true}
	gapPathname  = Protection{What: "connections to pathname unix sockets made outside the sandbox", ABI: 9}
	gapUDP       = Protection{What: "UDP bind and send", ABI: 10}
	denyGaps     = []Protection{gapWrite, gapTruncate, gapTCP, gapSignal, gapAbstract, gapPathname, gapUDP}
	allowGaps    = []Protection{gapWrite, gapTruncate, gapSignal, gapAbstract, gapPathname}
	unixGaps     = []Protection{gapWrite, gapTruncate, gapSignal}
	allScopes    = scopeAbstractUnixSocket | scopeSignal
	tcpRights    = netBindTCP | netConnectTCP
	deviceRights = fsWriteFile | fsTruncate | fsIoctlDev
)

func TestRules(t *testing.T) {
	deny := Config{Mode: ModeAuto, Writable: []string{"/w"}, NetworkDeny: true}
	allow := Config{Mode: ModeAuto, Writable: []string{"/w"}}
	unixOn := Config{Mode: ModeAuto, Writable: []string{"/w"}, UnixSockets: true}
	denyUnixOn := Config{Mode: ModeAuto, Writable: []string{"/w"}, NetworkDeny: true, UnixSockets: true}
	require := Config{Mode: ModeRequire, Writable: []string{"/w"}, NetworkDeny: true}
	off := Config{Mode: ModeOff, Writable: []string{"/w"}, NetworkDeny: true}
	tests := []struct {
		name string
		c    Config
		abi  int
		want Ruleset
	}{
		{"auto abi 0: runs without", deny, 0, Ruleset{Mode: ModeAuto, RequiredABI: 6, Status: StatusUnavailable, Gaps: denyGaps}},
		{"require abi 0: refused", require, 0, Ruleset{Mode: ModeRequire, RequiredABI: 6, Status: StatusRefused, Gaps: denyGaps}},
		{"off", off, 7, Ruleset{Mode: ModeOff, ABI: 7, RequiredABI: 6, Status: StatusOff}},
		{"zero mode is auto", Config{Writable: []string{"/w"}}, 0, Ruleset{Mode: ModeAuto, RequiredABI: 6, Status: StatusUnavailable, Gaps: allowGaps}},
		{"auto abi 1: no refer, no truncate", deny, 1, Ruleset{
			Mode: ModeAuto, ABI: 1, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi1FS,
			Paths: paths(abi1FS, fsWriteFile), Gaps: denyGaps[1:]}},
		{"auto abi 3", deny, 3, Ruleset{
			Mode: ModeAuto, ABI: 3, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi3FS,
			Paths: paths(abi3FS, fsWriteFile|fsTruncate), Gaps: denyGaps[2:]}},
		{"require abi 3: refused", require, 3, Ruleset{Mode: ModeRequire, ABI: 3, RequiredABI: 6, Status: StatusRefused, Gaps: denyGaps[2:]}},
		{"auto abi 4 deny: tcp", deny, 4, Ruleset{
			Mode: ModeAuto, ABI: 4, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi3FS, HandledNet: tcpRights,
			Paths: paths(abi3FS, fsWriteFile|fsTruncate), Gaps: denyGaps[3:]}},
		{"auto abi 4 allow: no net", allow, 4, Ruleset{
			Mode: ModeAuto, ABI: 4, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi3FS,
			Paths: paths(abi3FS, fsWriteFile|fsTruncate), Gaps: allowGaps[2:]}},
		{"require abi 5: refused (scoping)", require, 5, Ruleset{Mode: ModeRequire, ABI: 5, RequiredABI: 6, Status: StatusRefused, Gaps: denyGaps[3:]}},
		{"require abi 6 deny", require, 6, Ruleset{
			Mode: ModeRequire, ABI: 6, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi5FS, HandledNet: tcpRights, Scoped: allScopes,
			Paths: paths(abi5FS, deviceRights), Gaps: denyGaps[5:]}},
		{"auto abi 7 deny", deny, 7, Ruleset{
			Mode: ModeAuto, ABI: 7, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi5FS, HandledNet: tcpRights, Scoped: allScopes,
			Paths: paths(abi5FS, deviceRights), Gaps: denyGaps[5:]}},
		{"auto abi 7 allow: scoping still", allow, 7, Ruleset{
			Mode: ModeAuto, ABI: 7, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi5FS, Scoped: allScopes,
			Paths: paths(abi5FS, deviceRights), Gaps: allowGaps[4:]}},
		{"auto abi 7 --allow-unix-sockets: signals scoped only", unixOn, 7, Ruleset{
			Mode: ModeAuto, ABI: 7, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi5FS, Scoped: scopeSignal,
			Paths: paths(abi5FS, deviceRights)}},
		// The Landlock-only backend shares the host's network namespace:
		// scoping is what keeps its abstract sockets out under deny.
		{"auto abi 7 deny --allow-unix-sockets: abstract still scoped", denyUnixOn, 7, Ruleset{
			Mode: ModeAuto, ABI: 7, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi5FS, HandledNet: tcpRights, Scoped: allScopes,
			Paths: paths(abi5FS, deviceRights), Gaps: []Protection{gapUDP}}},
		{"auto abi 9 deny: pathname sockets handled, granted nowhere", deny, 9, Ruleset{
			Mode: ModeAuto, ABI: 9, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi5FS | fsResolveUnix, HandledNet: tcpRights, Scoped: allScopes,
			Paths: paths(abi5FS, deviceRights), Gaps: denyGaps[6:]}},
		{"auto abi 9 allow: pathname sockets handled too", allow, 9, Ruleset{
			Mode: ModeAuto, ABI: 9, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi5FS | fsResolveUnix, Scoped: allScopes,
			Paths: paths(abi5FS, deviceRights)}},
		{"auto abi 9 --allow-unix-sockets: pathname sockets not handled", unixOn, 9, Ruleset{
			Mode: ModeAuto, ABI: 9, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi5FS, Scoped: scopeSignal,
			Paths: paths(abi5FS, deviceRights)}},
		{"auto abi 3 --allow-unix-sockets", unixOn, 3, Ruleset{
			Mode: ModeAuto, ABI: 3, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi3FS,
			Paths: paths(abi3FS, fsWriteFile|fsTruncate), Gaps: unixGaps[2:]}},
		{"auto abi 12 deny: udp too", deny, 12, Ruleset{
			Mode: ModeAuto, ABI: 12, RequiredABI: 6, Status: StatusEnforced, HandledFS: abi5FS | fsResolveUnix,
			HandledNet: tcpRights | netBindUDP | netConnectSendUDP, Scoped: allScopes, Paths: paths(abi5FS, deviceRights)}},
	}
	for _, tt := range tests {
		got := Rules(tt.c, tt.abi)
		if diff := cmp.Diff(got, tt.want); diff != "" {
			t.Errorf("Rules(%s) mismatch (-got +want):\n%s", tt.name, diff)
		}
		// Check agrees with the status.
		err := Check(tt.c, tt.abi)
		if (err != nil) != (tt.want.Status == StatusRefused) {
			t.Errorf("Check(%s) = %v, status %s", tt.name, err, tt.want.Status)
		}
	}
}

// TestRulesNeverGrantOutside: whatever the ABI, no rule allows a right that
// changes the file system outside the roots and devices, and no port rule
// exists to allow network access.
func TestRulesNeverGrantOutside(t *testing.T) {
	c := Config{Writable: []string{"/home/u/proj", "/tmp"}, NetworkDeny: true}
	for abi := 1; abi <= 12; abi++ {
		rs := Rules(c, abi)
		for _, p := range rs.Paths {
			if p.Access&^rs.HandledFS != 0 {
				t.Errorf("ABI %d: %s allows unhandled %s", abi, p.Path, p.Access&^rs.HandledFS)
			}
			if p.Access&fsResolveUnix != 0 {
				t.Errorf("ABI %d: %s allows resolve_unix under --network deny", abi, p.Path)
			}
			writes := p.Access &^ read
			if writes != 0 && p.Path != "/home/u/proj" && p.Path != "/tmp" && !strings.HasPrefix(p.Path, "/dev/") {
				t.Errorf("ABI %d: %s allows %s", abi, p.Path, writes)
			}
		}
	}
}

func TestRulesMergesDuplicates(t *testing.T) {
	rs := Rules(Config{Writable: []string{"/", "/dev/shm", "/"}}, 7)
	var got []string
	for _, p := range rs.Paths {
		got = append(got, p.Path)
	}
	want := []string{"/", "/dev/shm", "/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("paths mismatch (-got +want):\n%s", diff)
	}
	if rs.Paths[0].Access != abi5FS {
		t.Errorf("writable / got %s, want everything", rs.Paths[0].Access)
	}
	if shm := rs.Paths[1]; shm.IfExists {
		t.Errorf("/dev/shm named as a writable root must exist: %+v", shm)
	}
}

func TestRequireError(t *testing.T) {
	c := Config{Mode: ModeRequire, NetworkDeny: true}
	tests := []struct {
		abi        int
		msg, hint  string
		wantNilErr bool
	}{
		{abi: 0, msg: "--landlock require: this kernel has no Landlock",
			hint: "Landlock needs Linux 5.13 or newer with landlock in the lsm= boot parameter (see /sys/kernel/security/lsm); or use --landlock auto to run with bubblewrap alone"},
		{abi: 3, msg: "--landlock require: the kernel offers Landlock ABI 3, the policy needs ABI 6 (missing: TCP connect and bind; signals to processes outside the sandbox; connections to abstract unix sockets outside the sandbox)",
			hint: "Landlock ABI 6 needs Linux 6.12 or newer; or use --landlock auto to enforce what ABI 3 can"},
		{abi: 6, wantNilErr: true},
	}
	for _, tt := range tests {
		err := Check(c, tt.abi)
		if tt.wantNilErr {
			if err != nil {
				t.Errorf("Check(ABI %d) = %v, want nil", tt.abi, err)
			}
			continue
		}
		re, ok := err.(*RequireError)
		if !ok {
			t.Fatalf("Check(ABI %d) = %T %v, want *RequireError", tt.abi, err, err)
		}
		if re.Error() != tt.msg || re.Hint() != tt.hint {
			t.Errorf("Check(ABI %d):\n got %q\n     %q\nwant %q\n     %q", tt.abi, re.Error(), re.Hint(), tt.msg, tt.hint)
		}
	}
	if err := Check(Config{Mode: ModeAuto}, 0); err != nil {
		t.Errorf("auto must never be refused: %v", err)
	}
}

// TestRulesGolden pins the explain text and JSON.
func TestRulesGolden(t *testing.T) {
	c := Config{Mode: ModeAuto, Writable: []string{"/home/u/proj", "/tmp"}, NetworkDeny: true}
	var b strings.Builder
	for _, tc := range []struct {
		c   Config
		abi int
	}{{c, 7}, {c, 3}, {c, 0}, {Config{Mode: ModeRequire}, 5}, {Config{Mode: ModeOff}, 7}} {
		b.WriteString(Rules(tc.c, tc.abi).String() + "\n\n")
	}
	js, err := json.MarshalIndent(Rules(c, 7), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b.Write(js)
	b.WriteString("\n")
	harness.Golden(t, "rules.golden", b.String(), *update)
}

func TestSetNames(t *testing.T) {
	if got := (fsReadFile | fsRefer | AccessFS(1<<40)).Names(); !cmp.Equal(got, []string{"read_file", "refer", "bit40"}) {
		t.Errorf("Names = %q", got)
	}
	if got := AccessNet(0).String(); got != "" {
		t.Errorf("empty set = %q", got)
	}
}

// TestRulesProxyPort: under the allowlist, from ABI 4, TCP connect is
// handled with one port allowed (the proxy's) and bind is left alone;
// before ABI 4 there are no network rules, and that is a gap, not a
// refusal (the namespace is the fence).
func TestRulesProxyPort(t *testing.T) {
	c := Config{Mode: ModeAuto, Writable: []string{"/w"}, ProxyPort: 3128}
	rs := Rules(c, 4)
	if rs.Status != StatusEnforced || rs.HandledNet != netConnectTCP || len(rs.Ports) != 1 || rs.Ports[0] != (PortRule{Port: 3128, Access: netConnectTCP}) {
		t.Errorf("ABI 4: %+v", rs)
	}
	back, _, err := ParseArgs(append(rs.Args(), "--", "true"))
	if err != nil || len(back.Ports) != 1 || back.Ports[0] != rs.Ports[0] {
		t.Errorf("port= does not round-trip: %v %+v", err, back.Ports)
	}
	rs = Rules(c, 3)
	if rs.HandledNet != 0 || len(rs.Ports) != 0 || len(rs.Gaps) == 0 {
		t.Errorf("ABI 3: %+v", rs)
	}
	if RequiredABI(c) != RequiredABI(Config{Mode: ModeRequire, Writable: []string{"/w"}}) {
		t.Error("the port rule must not raise the required ABI")
	}
}
