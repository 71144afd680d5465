package seccomp

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

const (
	sockCloexec  = 0x80000
	sockNonblock = 0x800
)

func mustParse(t *testing.T, doc string) *specs.LinuxSeccomp {
	t.Helper()
	p, err := Parse([]byte(doc), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWithNetworkDenyDecisions(t *testing.T) {
	p := WithNetworkDeny(Default())
	if err := validate(p, ""); err != nil {
		t.Fatalf("WithNetworkDeny(Default()) is invalid: %v", err)
	}
	checkCalls(t, "WithNetworkDeny(Default())", p, []call{
		// Every socket, AF_UNIX included: path sockets are routes out.
		{"socket", []uint64{afUnix, sockStream}, eperm},
		{"socket", []uint64{afInet, sockStream}, eperm},
		{"socket", []uint64{afVsock, sockStream}, eperm},
		{"socket", []uint64{high32 | afUnix, sockStream}, eperm},
		// Connected AF_UNIX pairs stay: they reach only each other.
		{"socketpair", []uint64{afUnix, sockStream}, allowed},
		{"socketpair", []uint64{afUnix, sockStream | sockCloexec}, allowed},
		{"socketpair", []uint64{afUnix, sockSeqpacket | sockNonblock}, allowed},
		// A datagram pair can sendto() any named socket.
		{"socketpair", []uint64{afUnix, sockDgram}, eperm},
		{"socketpair", []uint64{afUnix, sockDgram | sockCloexec}, eperm},
		{"socketpair", []uint64{afUnix, sockDgram | sockNonblock | sockCloexec}, eperm},
		{"socketpair", []uint64{afUnix, high32 | sockDgram}, eperm},
		{"socketpair", []uint64{afUnix, sockRaw}, eperm},
		{"socketpair", []uint64{afInet, sockStream}, eperm},
		{"socketpair", []uint64{high32 | afUnix, sockStream}, eperm}, // junk above the int: refused, not trusted
		// The rest of the default profile is untouched.
		{"ioctl", []uint64{0, high32 | tiocsti}, eperm},
		{"clone", []uint64{cloneNewUser | forkFlags}, eperm},
		{"read", nil, allowed},
	})
}

func TestWithNetworkDenyDoesNotChangeItsInput(t *testing.T) {
	in := mustParse(t, `{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38, "syscalls": [
		{"names": ["read", "socket", "socketpair"], "action": "SCMP_ACT_ALLOW"},
		{"names": ["bpf"], "action": "SCMP_ACT_KILL_PROCESS"}]}`)
	before := cloneProfile(in)
	out := WithNetworkDeny(in)
	if diff := cmp.Diff(in, before); diff != "" {
		t.Errorf("WithNetworkDeny changed its input (-after +before):\n%s", diff)
	}
	out.Syscalls[0].Names[0] = "changed"
	*out.DefaultErrnoRet = 1
	if diff := cmp.Diff(in, before); diff != "" {
		t.Errorf("WithNetworkDeny's result shares memory with its input (-after +before):\n%s", diff)
	}
}

// A user profile may deny by default and allow what it needs; network deny
// must still win for socket, and keep socketpair to connected AF_UNIX pairs.
func TestWithNetworkDenyOnAllowList(t *testing.T) {
	in := mustParse(t, `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
		{"names": ["read", "socket", "socketpair", "connect"], "action": "SCMP_ACT_ALLOW"}]}`)
	p := WithNetworkDeny(in)
	if err := validate(p, ""); err != nil {
		t.Fatalf("WithNetworkDeny(allow list) is invalid: %v", err)
	}
	checkCalls(t, "allow list", p, []call{
		{"read", nil, allowed},
		{"connect", nil, allowed},
		{"socket", []uint64{afUnix, sockStream}, eperm},
		{"socketpair", []uint64{afUnix, sockStream | sockCloexec}, allowed},
		{"socketpair", []uint64{afUnix, sockSeqpacket}, allowed},
		{"socketpair", []uint64{afUnix, sockDgram}, eperm},
		{"socketpair", []uint64{afInet, sockStream}, eperm},
	})
}

func TestWithNetworkDenyKeepsStricterRules(t *testing.T) {
	tests := []struct {
		name  string
		doc   string
		calls []call
	}{
		{"socketpair killed outright stays killed",
			`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["socketpair"], "action": "SCMP_ACT_KILL_PROCESS"}]}`,
			[]call{{"socketpair", []uint64{afUnix, sockStream}, "SCMP_ACT_KILL_PROCESS"}}},
		{"allow list without socketpair keeps it denied",
			`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]}`,
			[]call{{"socketpair", []uint64{afUnix, sockStream}, eperm}, {"socket", []uint64{afUnix, sockStream}, eperm}}},
		{"socket allowed by a logging rule is denied",
			`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["socket", "socketpair"], "action": "SCMP_ACT_LOG"}]}`,
			[]call{{"socket", []uint64{afInet, sockStream}, eperm}, {"socketpair", []uint64{afUnix, sockDgram}, eperm}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := WithNetworkDeny(mustParse(t, tt.doc))
			if err := validate(p, ""); err != nil {
				t.Fatalf("WithNetworkDeny result is invalid: %v", err)
			}
			checkCalls(t, tt.name, p, tt.calls)
		})
	}
}

// TestWithSocketsOnDefault: without --network deny, unix sockets are
// still refused by default: only AF_UNIX, by the int the kernel reads, and
// io_uring, which can make one. --network deny --allow-unix-sockets is
// AF_UNIX exactly, nothing else.
func TestWithSocketsOnDefault(t *testing.T) {
	for s, calls := range map[Sockets][]call{{Unix: true}: {
		{"socket", []uint64{afUnix, sockStream}, eperm},
		{"socket", []uint64{afUnix, sockDgram | sockCloexec}, eperm},
		{"socket", []uint64{high32 | afUnix, sockStream}, eperm}, // the kernel reads the int: still AF_UNIX
		{"socket", []uint64{afInet, sockStream}, allowed},
		{"socket", []uint64{afVsock, sockStream}, eperm}, // the base profile's rule is kept
		{"socketpair", []uint64{afUnix, sockStream}, allowed},
		{"socketpair", []uint64{afUnix, sockDgram}, eperm},
		{"io_uring_setup", nil, eperm},
		{"io_uring_enter", nil, eperm},
		{"connect", nil, allowed},
	}, {Network: true}: {
		{"socket", []uint64{afUnix, sockStream}, allowed},
		{"socket", []uint64{high32 | afUnix, sockStream}, eperm}, // junk above the int: refused
		{"socket", []uint64{afInet, sockStream}, eperm},
		{"socketpair", []uint64{afUnix, sockDgram}, allowed},
		{"io_uring_setup", nil, eperm},
	}, {Inet: true, Unix: true}: { // the allowlist
		{"socket", []uint64{afInet, sockStream}, allowed},
		{"socket", []uint64{afInet6, sockDgram | sockCloexec}, allowed},
		{"socket", []uint64{afNetlink, sockRaw}, allowed},
		{"socket", []uint64{afNetlink, sockRaw | sockCloexec, netlinkRoute}, allowed},
		{"socket", []uint64{afNetlink, sockDgram, 15 /* NETLINK_KOBJECT_UEVENT */}, eperm},
		{"socket", []uint64{afNetlink, sockRaw, 4 /* NETLINK_SOCK_DIAG */}, eperm},
		{"socket", []uint64{afNetlink, sockRaw, high32 | netlinkRoute}, eperm}, // junk above the int
		{"socket", []uint64{afUnix, sockStream}, eperm},
		{"socket", []uint64{afVsock, sockStream}, eperm},
		{"socket", []uint64{17 /* AF_PACKET */, sockRaw}, eperm},
		{"socket", []uint64{high32 | 17, sockRaw}, eperm}, // the kernel reads the int
		{"socket", []uint64{31 /* AF_BLUETOOTH */, sockStream}, eperm},
		{"socket", []uint64{afMax, sockStream}, eperm},
		{"socket", []uint64{0xffff, sockStream}, eperm},
		{"socketpair", []uint64{afUnix, sockStream}, allowed},
		{"io_uring_setup", nil, eperm},
	}, {Inet: true}: { // the allowlist with --allow-unix-sockets
		{"socket", []uint64{afUnix, sockStream}, allowed},
		{"socket", []uint64{afInet, sockStream}, allowed},
		{"socket", []uint64{17 /* AF_PACKET */, sockDgram}, eperm},
		{"socket", []uint64{afVsock, sockStream}, eperm},
		{"socket", []uint64{5 /* AF_APPLETALK */, sockDgram}, eperm},
		{"io_uring_setup", nil, eperm},
	}} {
		p := WithSockets(Default(), s)
		if err := validate(p, ""); err != nil {
			t.Fatalf("%+v: the additions are invalid: %v", s, err)
		}
		checkCalls(t, fmt.Sprintf("%+v", s), p, calls)
	}
}

// A user profile that allows io_uring and socket: the additions refuse
// io_uring in every mode with a socket rule, and an allow list keeps its
// other families named exactly.
func TestWithSocketsUserProfile(t *testing.T) {
	allowAll := mustParse(t, `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_ERRNO"}]}`)
	list := mustParse(t, `{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38, "syscalls": [
		{"names": ["read", "socket", "socketpair", "io_uring_setup", "io_uring_enter"], "action": "SCMP_ACT_ALLOW"}]}`)
	tests := []struct {
		name  string
		p     *specs.LinuxSeccomp
		s     Sockets
		calls []call
	}{
		{"deny, allow-all profile", allowAll, Sockets{Network: true, Unix: true}, []call{
			{"io_uring_setup", nil, eperm}, {"io_uring_enter", nil, eperm}, {"io_uring_register", nil, eperm},
			{"socket", []uint64{afUnix, sockStream}, eperm}, {"mkdir", nil, eperm}}},
		{"allow, allow-all profile", allowAll, Sockets{Unix: true}, []call{
			{"io_uring_setup", nil, eperm}, {"socket", []uint64{afUnix, sockStream}, eperm},
			{"socket", []uint64{10 /* AF_INET6 */, sockStream}, allowed}}},
		{"allow, allow list", list, Sockets{Unix: true}, []call{
			{"io_uring_setup", nil, eperm}, {"io_uring_enter", nil, eperm},
			{"socket", []uint64{afUnix, sockStream}, enosys},
			{"socket", []uint64{high32 | afUnix, sockStream}, enosys},
			{"socket", []uint64{afInet, sockStream}, allowed},
			{"socket", []uint64{high32 | afInet, sockStream}, enosys},
			{"socketpair", []uint64{afUnix, sockStream}, allowed}, {"socketpair", []uint64{afUnix, sockDgram}, enosys}}},
		{"deny with unix, allow list", list, Sockets{Network: true}, []call{
			{"io_uring_setup", nil, eperm},
			{"socket", []uint64{afUnix, sockStream}, allowed}, {"socket", []uint64{afInet, sockStream}, enosys}}},
		{"allowlist, allow list", list, Sockets{Inet: true, Unix: true}, []call{
			{"socket", []uint64{afInet, sockStream}, allowed}, {"socket", []uint64{afNetlink, sockRaw}, allowed},
			{"socket", []uint64{afUnix, sockStream}, enosys}, {"socket", []uint64{17, sockRaw}, enosys},
			{"socket", []uint64{high32 | afInet, sockStream}, enosys}}},
		{"allowlist, allow-all profile", allowAll, Sockets{Inet: true, Unix: true}, []call{
			{"socket", []uint64{afInet6, sockStream}, allowed}, {"socket", []uint64{17, sockRaw}, eperm},
			{"socket", []uint64{afVsock, sockStream}, eperm}, {"socket", []uint64{afUnix, sockStream}, eperm}}},
		{"none", allowAll, Sockets{}, []call{{"io_uring_setup", nil, allowed}, {"socket", []uint64{afUnix, sockStream}, allowed}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := WithSockets(tt.p, tt.s)
			if err := validate(p, ""); err != nil {
				t.Fatalf("result is invalid: %v", err)
			}
			checkCalls(t, tt.name, p, tt.calls)
		})
	}
}

// A TRACE rule or default lets a call run once the command traces its own
// child, so for the sockets it is an allow: the additions still refuse
// AF_UNIX (--network allow) or every other family (--allow-unix-sockets
// under deny), and datagram pairs.
func TestWithSocketsTraceIsNoRefusal(t *testing.T) {
	rule := mustParse(t, `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["socket", "socketpair"], "action": "SCMP_ACT_TRACE"}]}`)
	def := mustParse(t, `{"defaultAction": "SCMP_ACT_TRACE", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]}`)
	const traced = "SCMP_ACT_TRACE(1)"
	for _, tt := range []struct {
		name  string
		p     *specs.LinuxSeccomp
		s     Sockets
		calls []call
	}{
		{"trace rule, allow", rule, Sockets{Unix: true}, []call{
			{"socket", []uint64{afUnix, sockStream}, eperm}, {"socket", []uint64{afInet, sockStream}, traced},
			{"socketpair", []uint64{afUnix, sockDgram}, eperm}}},
		{"trace rule, deny with unix", rule, Sockets{Network: true}, []call{
			{"socket", []uint64{afInet, sockDgram}, eperm}, {"socket", []uint64{afUnix, sockStream}, traced}}},
		{"trace default, allow", def, Sockets{Unix: true}, []call{
			{"socket", []uint64{afUnix, sockStream}, eperm}, {"socketpair", []uint64{afUnix, sockDgram}, eperm},
			{"io_uring_setup", nil, eperm}}},
		{"trace default, deny with unix", def, Sockets{Network: true}, []call{
			{"socket", []uint64{afInet, sockDgram}, eperm}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := WithSockets(tt.p, tt.s)
			if err := validate(p, ""); err != nil {
				t.Fatalf("result is invalid: %v", err)
			}
			checkCalls(t, tt.name, p, tt.calls)
		})
	}
}

// Allows is what the parent checks before it plans Landlock: only a
// syscall no rule restricts and something permits counts as allowed.
func TestAllows(t *testing.T) {
	tests := []struct {
		doc  string
		want bool
	}{
		{`{"defaultAction": "SCMP_ACT_ALLOW"}`, true},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["landlock_create_ruleset"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}`, false},
		{`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["landlock_create_ruleset"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 2, "value": 1, "op": "SCMP_CMP_EQ"}]}]}`, false},
		{`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]}`, false},
		{`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["landlock_create_ruleset"], "action": "SCMP_ACT_ALLOW", "args": [{"index": 2, "value": 0, "op": "SCMP_CMP_EQ"}]}]}`, false},
		{`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read", "landlock_create_ruleset"], "action": "SCMP_ACT_ALLOW"}]}`, true},
		{`{"defaultAction": "SCMP_ACT_LOG", "syscalls": [{"names": ["landlock_create_ruleset"], "action": "SCMP_ACT_KILL_PROCESS"}]}`, false},
	}
	for _, tt := range tests {
		if got := Allows(mustParse(t, tt.doc), "landlock_create_ruleset"); got != tt.want {
			t.Errorf("Allows(%s) = %v, want %v", tt.doc, got, tt.want)
		}
	}
}
