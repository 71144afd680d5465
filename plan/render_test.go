package plan

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seccomp"
)

func testPolicy() *policy.Policy {
	return &policy.Policy{Cwd: "/proj", Home: "/home/u", Network: policy.NetworkDeny,
		Writable: []policy.Root{{Path: "/proj", Source: "cwd"}, {Path: "/tmp", Source: "default"}},
		Hidden:   []policy.Hidden{{Path: "/home/u/.ssh", Exists: true, IsDir: true}}}
}

var noFS = FS{Kind: func(string) (bool, bool) { return false, false }, List: func(string) []string { return nil }}

// TestRenderStage2: with Landlock enforced, bubblewrap runs the stage 2 with
// exactly the planned ABI and roots, and the parts that depend on the
// ruleset (seccomp's unix rule, the unix fence, the gaps) follow from it.
func TestRenderStage2(t *testing.T) {
	argv := []string{"go", "test"}
	tests := []struct {
		name    string
		abi     int
		mode    landlock.Mode
		command []string
		unix    Unix
		sockets seccomp.Sockets
		gaps    int
	}{
		{"abi 9 fences unix sockets", 9, landlock.ModeAuto, stage2(9, argv), Unix{Fence: "landlock"}, seccomp.Sockets{Network: true}, 0},
		{"abi 6 leaves them to seccomp", 6, landlock.ModeAuto, stage2(6, argv), Unix{Fence: "seccomp"}, seccomp.Sockets{Network: true, Unix: true}, 0},
		{"off runs the command itself", 9, landlock.ModeOff, argv, Unix{Fence: "seccomp"}, seccomp.Sockets{Network: true, Unix: true}, 1},
		{"no Landlock runs the command itself", 0, landlock.ModeAuto, argv, Unix{Fence: "seccomp"}, seccomp.Sockets{Network: true, Unix: true}, 1},
	}
	for _, tc := range tests {
		pl := Render(testPolicy(), argv, Options{Backend: Bwrap, Landlock: tc.mode, LandlockABI: tc.abi, FS: noFS})
		if pl.Refused != nil {
			t.Errorf("Render(%s) refused: %v", tc.name, pl.Refused)
		}
		if diff := cmp.Diff(pl.Bwrap.Command, tc.command); diff != "" {
			t.Errorf("Render(%s) command mismatch (-got +want):\n%s", tc.name, diff)
		}
		if pl.Unix != tc.unix || pl.Seccomp.Sockets != tc.sockets || len(pl.Gaps) != tc.gaps {
			t.Errorf("Render(%s): unix %+v sockets %+v gaps %q", tc.name, pl.Unix, pl.Seccomp.Sockets, pl.Gaps)
		}
	}
}

// stage2 is the stage-2 line for the test policy at abi: zsandbox by
// descriptor, then the ruleset the parent planned, as numbers.
func stage2(abi int, argv []string) []string {
	rs := landlock.Rules(landlock.Config{Mode: landlock.ModeAuto, ABI: abi, Writable: []string{"/proj", "/tmp"}, NetworkDeny: true}, abi)
	return append([]string{"/proc/self/fd/6", "__stage2", "abi=" + strconv.Itoa(abi)}, append(rs.Args()[1:], append([]string{"--"}, argv...)...)...)
}

// TestRenderRefusesWhatStage2CannotApply: the divergence of issue 15. A
// user seccomp profile that refuses a Landlock call would leave the stage 2
// without its fence while explain said "enforced": the plan refuses
// instead (exit 127, nothing runs), and explain shows the refusal.
func TestRenderRefusesWhatStage2CannotApply(t *testing.T) {
	prof := &specs.LinuxSeccomp{DefaultAction: specs.ActAllow, Syscalls: []specs.LinuxSyscall{
		{Names: []string{"landlock_create_ruleset"}, Action: specs.ActErrno}}}
	pl := Render(testPolicy(), []string{"true"}, Options{Backend: Bwrap, Landlock: landlock.ModeAuto, LandlockABI: 7,
		SeccompProfile: "/p.json", UserSeccomp: prof, FS: noFS})
	if pl.Landlock.Status != landlock.StatusRefused || !strings.Contains(pl.Landlock.Reason, "landlock_create_ruleset") {
		t.Errorf("ruleset = %s %q, want refused naming landlock_create_ruleset", pl.Landlock.Status, pl.Landlock.Reason)
	}
	if exit.Code(pl.Refused) != exit.SandboxCode {
		t.Errorf("Refused = %v (exit %d), want exit 127", pl.Refused, exit.Code(pl.Refused))
	}
	if pl.Seccomp.Profile != "/p.json" || pl.Seccomp.User != prof {
		t.Errorf("seccomp source = %+v, want the user's profile", pl.Seccomp)
	}
}

// TestRenderRequire: --landlock require on a kernel without the ABI is a
// refusal with the kernel hint.
func TestRenderRequire(t *testing.T) {
	pl := Render(testPolicy(), []string{"true"}, Options{Backend: Bwrap, Landlock: landlock.ModeRequire, LandlockABI: 3, FS: noFS})
	var e *exit.Error
	if !errors.As(pl.Refused, &e) || e.Code != exit.SandboxCode || len(e.Hints) != 1 || !strings.Contains(e.Msg, "--landlock require") {
		t.Errorf("Refused = %#v, want a --landlock require error with one hint", pl.Refused)
	}
}

// TestRenderAlone: the Landlock-only backend refuses when zsandbox's own
// binary lies in a writable root (the command could replace it), and
// lists what it cannot enforce.
func TestRenderAlone(t *testing.T) {
	o := Options{Backend: Landlock, LandlockABI: 7, FS: noFS, Exe: "/proj/bin/zsandbox", Warn: true}
	pl := Render(testPolicy(), []string{"true"}, o)
	var unsafe *policy.UnsafeError
	if !errors.As(pl.Refused, &unsafe) || pl.Landlock.Status != landlock.StatusRefused {
		t.Errorf("Refused = %v, status %s; want an UnsafeError and a refused ruleset", pl.Refused, pl.Landlock.Status)
	}
	o.Exe = "/usr/bin/zsandbox"
	pl = Render(testPolicy(), []string{"true"}, o)
	if pl.Refused != nil || pl.Landlock.Status != landlock.StatusEnforced || pl.AloneWarning == "" || len(pl.Gaps) == 0 {
		t.Errorf("Render(landlock backend) = refused %v, status %s, warning %q, %d gaps", pl.Refused, pl.Landlock.Status, pl.AloneWarning, len(pl.Gaps))
	}
}

// TestRenderHintFacts: the hint knows only existing hidden paths.
func TestRenderHintFacts(t *testing.T) {
	p := testPolicy()
	p.Hidden = append(p.Hidden, policy.Hidden{Path: "/home/u/.aws"})
	pl := Render(p, []string{"true"}, Options{Backend: Bwrap, FS: noFS})
	if diff := cmp.Diff(pl.Hint.Hidden, []string{"/home/u/.ssh"}); diff != "" || !pl.Hint.NetworkDeny || !pl.Hint.UnixDeny {
		t.Errorf("Hint = %+v (hidden diff %s)", pl.Hint, diff)
	}
}

// TestRenderAllowlist: the allowlist is planned per backend: bwrap shares
// the namespace the netns role makes and the proxy is at 127.0.0.1:3128;
// Seatbelt's proxy port is chosen at start; the Landlock-only backend,
// which cannot make a namespace, refuses (127). Under it the seccomp
// filter keeps only unix, IPv4, IPv6 and netlink sockets.
func TestRenderAllowlist(t *testing.T) {
	p := testPolicy()
	p.Network = policy.NetworkAllowlist
	p.Allowlist = &policy.Allowlist{Allow: []policy.Domain{{Host: "pypi.org"}}}
	argv := []string{"pip", "download", "x"}
	pl := Render(p, argv, Options{Backend: Bwrap, Landlock: landlock.ModeAuto, LandlockABI: 7, FS: noFS})
	a := pl.Allowlist
	if pl.Refused != nil || a == nil || !a.Namespace || a.Proxy != "127.0.0.1:3128" || pl.NetworkDeny {
		t.Fatalf("bwrap: refused %v, allowlist %+v", pl.Refused, a)
	}
	if !pl.Seccomp.Sockets.Inet || pl.Seccomp.Sockets.Network || !strings.Contains(strings.Join(pl.Bwrap.Args, " "), "--share-net") {
		t.Errorf("bwrap: sockets %+v, args %q", pl.Seccomp.Sockets, pl.Bwrap.Args)
	}
	if pl.Stage2.ProxyPort != 3128 || len(pl.Landlock.Ports) != 1 || pl.Landlock.Ports[0].Port != 3128 {
		t.Errorf("bwrap: the Landlock stage should allow TCP connect to the proxy's port alone: %+v", pl.Landlock.Ports)
	}
	if !strings.Contains(strings.Join(a.Env, " "), "HTTPS_PROXY=http://127.0.0.1:3128") {
		t.Errorf("bwrap: env %q", a.Env)
	}
	sb := Render(p, argv, Options{Backend: Seatbelt, FS: noFS})
	if sb.SeatbeltErr != nil || sb.Allowlist.Namespace || sb.Allowlist.Proxy != seatbeltProxy ||
		!strings.Contains(sb.Seatbelt.Text, `(remote tcp "localhost:ZSANDBOX_PROXY_PORT")`) {
		t.Errorf("seatbelt: %v %+v", sb.SeatbeltErr, sb.Allowlist)
	}
	ll := Render(p, argv, Options{Backend: Landlock, Landlock: landlock.ModeAuto, LandlockABI: 7, FS: noFS})
	var ee *exit.Error
	if !errors.As(ll.Refused, &ee) || ee.Code != 127 || !strings.Contains(ll.Refused.Error(), "--backend landlock cannot make") {
		t.Errorf("--backend landlock: refused %v, want 127 naming the backend", ll.Refused)
	}
	if got := strings.Join(ll.Allowlist.lines(), "\n"); !strings.Contains(got, "exec refuses the allowlist (exit 127)") || strings.Contains(got, "Seatbelt") {
		t.Errorf("--backend landlock: explain describes a proxy exec never starts:\n%s", got)
	}
	if got := strings.Join(sb.Allowlist.lines(), "\n"); !strings.Contains(got, "the Seatbelt profile allows") {
		t.Errorf("seatbelt: explain lost the proxy's port:\n%s", got)
	}
	p.Network, p.Allowlist = policy.NetworkDeny, nil
	if pl := Render(p, argv, Options{Backend: Bwrap, FS: noFS}); pl.Allowlist != nil || pl.Seccomp.Sockets.Inet {
		t.Errorf("--network deny planned an allowlist: %+v", pl.Allowlist)
	}
}
