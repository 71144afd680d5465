package seccomp

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/zsandbox/zsandbox/profiles"
)

func TestParse(t *testing.T) {
	one := uint(1)
	tests := []struct {
		name string
		json string
		want *specs.LinuxSeccomp
	}{
		{"minimal", `{"defaultAction": "SCMP_ACT_ALLOW"}`,
			&specs.LinuxSeccomp{DefaultAction: specs.ActAllow}},
		{"rule with masked argument",
			`{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64"],
			  "syscalls": [{"names": ["ioctl"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
			    "args": [{"index": 1, "value": 4294967295, "valueTwo": 21522, "op": "SCMP_CMP_MASKED_EQ"}]}]}`,
			&specs.LinuxSeccomp{
				DefaultAction: specs.ActAllow,
				Architectures: []specs.Arch{specs.ArchX86_64},
				Syscalls: []specs.LinuxSyscall{{
					Names: []string{"ioctl"}, Action: specs.ActErrno, ErrnoRet: &one,
					Args: []specs.LinuxSeccompArg{{Index: 1, Value: 0xffffffff, ValueTwo: 0x5412, Op: specs.OpMaskedEqual}},
				}},
			}},
		{"allow list with default errno",
			`{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 38,
			  "syscalls": [{"names": ["read", "write"], "action": "SCMP_ACT_ALLOW"},
			               {"names": ["kill"], "action": "SCMP_ACT_ERRNO"}]}`,
			&specs.LinuxSeccomp{
				DefaultAction: specs.ActErrno, DefaultErrnoRet: ptr(uint(38)),
				Syscalls: []specs.LinuxSyscall{
					{Names: []string{"read", "write"}, Action: specs.ActAllow},
					{Names: []string{"kill"}, Action: specs.ActErrno},
				},
			}},
		{"unconditional and conditional rule with the same action",
			`{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
			  {"names": ["socket"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 40, "op": "SCMP_CMP_EQ"}]},
			  {"names": ["socket"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}`,
			&specs.LinuxSeccomp{
				DefaultAction: specs.ActAllow,
				Syscalls: []specs.LinuxSyscall{
					{Names: []string{"socket"}, Action: specs.ActErrno, Args: []specs.LinuxSeccompArg{{Index: 0, Value: 40, Op: specs.OpEqualTo}}},
					{Names: []string{"socket"}, Action: specs.ActErrno, ErrnoRet: &one},
				},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.json), "x.json")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(got, tt.want); diff != "" {
				t.Errorf("Parse(%s) mismatch (-got +want):\n%s", tt.name, diff)
			}
		})
	}
}

// rule wraps one syscall rule in a profile with an allow default.
func rule(r string) string {
	return `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [` + r + `]}`
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"empty", ``, `seccomp profile "x.json": empty document`},
		{"malformed", `{"defaultAction": "SCMP_ACT_ALLOW",}`,
			`seccomp profile "x.json": invalid JSON at byte 36: invalid character '}' looking for beginning of object key string`},
		{"truncated", `{"defaultAction": `, `seccomp profile "x.json": invalid JSON: unexpected end of document`},
		{"trailing data", `{"defaultAction": "SCMP_ACT_ALLOW"} {}`,
			`seccomp profile "x.json": unexpected data after the profile object`},
		{"unknown field", `{"defaultAction": "SCMP_ACT_ALLOW", "defaultActon": "SCMP_ACT_KILL"}`,
			`seccomp profile "x.json": defaultActon: unknown field`},
		{"unknown field in a rule", rule(`{"names": ["bpf"], "action": "SCMP_ACT_ERRNO", "comment": "x"}`),
			`seccomp profile "x.json": syscalls[0].comment: unknown field`},
		{"unknown field in an argument", rule(`{"names": ["socket"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_EQ", "mask": 1}]}`),
			`seccomp profile "x.json": syscalls[0].args[0].mask: unknown field`},
		{"key in the wrong case", rule(`{"Names": ["bpf"], "action": "SCMP_ACT_ERRNO"}`),
			`seccomp profile "x.json": syscalls[0].Names: unknown field (field names are case-sensitive: "names")`},
		{"duplicate key", `{"defaultAction": "SCMP_ACT_KILL", "defaultAction": "SCMP_ACT_ALLOW"}`,
			`seccomp profile "x.json": defaultAction: duplicate field`},
		{"wrong type", `{"defaultAction": 1}`,
			`seccomp profile "x.json": defaultAction: cannot use JSON number as specs.LinuxSeccompAction`},
		{"object where a name belongs", rule(`{"names": [{"name": "bpf"}], "action": "SCMP_ACT_ERRNO"}`),
			`seccomp profile "x.json": syscalls.names: cannot use JSON object as string`},
		{"missing default action", `{"syscalls": []}`, `seccomp profile "x.json": defaultAction: missing`},
		{"bad default action", `{"defaultAction": "ALLOW"}`, `seccomp profile "x.json": defaultAction: unknown action "ALLOW"`},
		{"default errno with allow", `{"defaultAction": "SCMP_ACT_ALLOW", "defaultErrnoRet": 1}`,
			`seccomp profile "x.json": defaultErrnoRet: only used with SCMP_ACT_ERRNO and SCMP_ACT_TRACE, not SCMP_ACT_ALLOW`},
		{"bad architecture", `{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "amd64"]}`,
			`seccomp profile "x.json": architectures[1]: unknown architecture "amd64"`},
		{"seccomp flags", `{"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_LOG"]}`,
			`seccomp profile "x.json": flags[0]: flag "SECCOMP_FILTER_FLAG_LOG" is not supported: bwrap installs the filter without seccomp(2) flags`},
		{"unknown flag", `{"defaultAction": "SCMP_ACT_ALLOW", "flags": ["LOG"]}`,
			`seccomp profile "x.json": flags[0]: unknown flag "LOG"`},
		{"listener", `{"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": "/run/l.sock"}`,
			`seccomp profile "x.json": listenerPath: not supported: bwrap has no seccomp notification listener`},
		{"bad action", rule(`{"names": ["bpf"], "action": "SCMP_ACT_ERRNO"}, {"names": ["kill"], "action": "SCMP_ACT_FOO"}`),
			`seccomp profile "x.json": syscalls[1].action: unknown action "SCMP_ACT_FOO"`},
		{"missing action", rule(`{"names": ["bpf"]}`), `seccomp profile "x.json": syscalls[0].action: missing`},
		{"notify action", rule(`{"names": ["bpf"], "action": "SCMP_ACT_NOTIFY"}`),
			`seccomp profile "x.json": syscalls[0].action: action "SCMP_ACT_NOTIFY" is not supported: bwrap has no seccomp notification listener`},
		{"action same as default", rule(`{"names": ["bpf"], "action": "SCMP_ACT_ALLOW"}`),
			`seccomp profile "x.json": syscalls[0].action: same as defaultAction, so the rule has no effect`},
		{"errno out of range", rule(`{"names": ["bpf"], "action": "SCMP_ACT_ERRNO", "errnoRet": 70000}`),
			`seccomp profile "x.json": syscalls[0].errnoRet: errno 70000 is out of range (at most 4095)`},
		{"missing names", rule(`{"action": "SCMP_ACT_ERRNO"}`), `seccomp profile "x.json": syscalls[0].names: missing`},
		{"empty name", rule(`{"names": ["bpf", ""], "action": "SCMP_ACT_ERRNO"}`),
			`seccomp profile "x.json": syscalls[0].names[1]: missing`},
		{"invalid name", rule(`{"names": ["SYS_bpf"], "action": "SCMP_ACT_ERRNO"}`),
			`seccomp profile "x.json": syscalls[0].names[0]: invalid syscall name "SYS_bpf"`},
		{"bad op", rule(`{"names": ["socket"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 40, "op": "SCMP_CMP_EQUAL"}]}`),
			`seccomp profile "x.json": syscalls[0].args[0].op: unknown operator "SCMP_CMP_EQUAL"`},
		{"missing op", rule(`{"names": ["socket"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 40}]}`),
			`seccomp profile "x.json": syscalls[0].args[0].op: missing`},
		{"index out of range", rule(`{"names": ["socket"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 6, "value": 40, "op": "SCMP_CMP_EQ"}]}`),
			`seccomp profile "x.json": syscalls[0].args[0].index: 6 is out of range (0 to 5)`},
		{"argument compared twice", rule(`{"names": ["personality"], "action": "SCMP_ACT_ERRNO", "args": [
			{"index": 0, "value": 0, "op": "SCMP_CMP_NE"}, {"index": 0, "value": 4294967295, "op": "SCMP_CMP_NE"}]}`),
			`seccomp profile "x.json": syscalls[0].args[1].index: argument 0 is compared twice in one rule; use one rule per comparison`},
		{"valueTwo without masked op", rule(`{"names": ["socket"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 40, "valueTwo": 1, "op": "SCMP_CMP_EQ"}]}`),
			`seccomp profile "x.json": syscalls[0].args[0].valueTwo: only used with SCMP_CMP_MASKED_EQ`},
		{"masked value outside mask", rule(`{"names": ["ioctl"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 1, "value": 255, "valueTwo": 21522, "op": "SCMP_CMP_MASKED_EQ"}]}`),
			`seccomp profile "x.json": syscalls[0].args[0].valueTwo: 0x5412 has bits outside the mask 0xff, so the rule never matches`},
		{"unconditional rule overrides a conditional one", `{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
			{"names": ["read", "socketpair"], "action": "SCMP_ACT_ALLOW"},
			{"names": ["socketpair"], "action": "SCMP_ACT_KILL", "args": [{"index": 1, "value": 15, "valueTwo": 2, "op": "SCMP_CMP_MASKED_EQ"}]}]}`,
			`seccomp profile "x.json": syscalls[1]: "socketpair" has an unconditional rule with another action in syscalls[0], which would override this conditional rule`},
		{"conflicting unconditional rules", `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
			{"names": ["bpf"], "action": "SCMP_ACT_ERRNO"}, {"names": ["bpf"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}`,
			`seccomp profile "x.json": syscalls[1]: "bpf" already has an unconditional rule with another action in syscalls[0]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse([]byte(tt.json), "x.json")
			if err == nil {
				t.Fatalf("Parse = %+v, want error %q", p, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("Parse error mismatch:\n got: %s\nwant: %s", got, tt.want)
			}
			var pe *ProfileError
			if !errors.As(err, &pe) || pe.Name != "x.json" {
				t.Errorf("Parse error %#v is not a *ProfileError naming x.json", err)
			}
		})
	}
}

func TestProfileErrorWithoutName(t *testing.T) {
	err := validate(&specs.LinuxSeccomp{DefaultAction: "SCMP_ACT_FOO"}, "")
	want := `seccomp profile: defaultAction: unknown action "SCMP_ACT_FOO"`
	if err == nil || err.Error() != want {
		t.Errorf("validate error = %v, want %q", err, want)
	}
}

func TestDefaultIsTheEmbeddedProfile(t *testing.T) {
	want, err := Parse(profiles.Seccomp(), "profiles/seccomp.json")
	if err != nil {
		t.Fatalf("the embedded profile does not pass Parse: %v", err)
	}
	if diff := cmp.Diff(Default(), want); diff != "" {
		t.Errorf("Default() mismatch (-got +want):\n%s", diff)
	}
	d := Default()
	d.Syscalls[0].Names[0] = "changed"
	if Default().Syscalls[0].Names[0] == "changed" {
		t.Error("Default() returns shared state; a caller's change leaked into the next call")
	}
}

// call is one syscall and the action a profile should take for it.
type call struct {
	name string
	args []uint64
	want string
}

func checkCalls(t *testing.T, what string, p *specs.LinuxSeccomp, calls []call) {
	t.Helper()
	for _, c := range calls {
		if got := decide(t, p, c.name, c.args...); got != c.want {
			t.Errorf("%s: %s(%#x) = %s, want %s", what, c.name, c.args, got, c.want)
		}
	}
}

// Flags and numbers the decision tests use.
const (
	high32       = 1 << 32 // bits above an int: the kernel ignores them, a rule must too
	forkFlags    = 0x1200011
	threadFlags  = 0x3d0f00
	cloneNewUser = 0x10000000
	afVsock      = 40
	tiocsti      = 0x5412
	tioclinux    = 0x541c
)

// The default profile's meaning, call by call. Arguments with bits above 32
// set are what a caller uses to slip past a rule that compares the whole
// register while the kernel reads only an int (CVE-2019-10063).
func TestDefaultDecisions(t *testing.T) {
	calls := []call{
		{"ioctl", []uint64{0, tiocsti}, eperm},
		{"ioctl", []uint64{0, high32 | tiocsti}, eperm},
		{"ioctl", []uint64{0, 0xffffffff00000000 | tiocsti}, eperm},
		{"ioctl", []uint64{0, tioclinux}, eperm},
		{"ioctl", []uint64{0, high32 | tioclinux}, eperm},
		{"ioctl", []uint64{0, 0x5413}, allowed}, // TIOCGWINSZ
		{"socket", []uint64{afVsock, sockStream}, eperm},
		{"socket", []uint64{high32 | afVsock, sockStream}, eperm},
		{"socket", []uint64{afInet, sockStream}, allowed},
		{"socket", []uint64{afUnix, sockStream}, allowed},
		{"socketpair", []uint64{afUnix, sockDgram}, allowed},
		{"clone", []uint64{threadFlags}, allowed}, // glibc pthread_create
		{"clone", []uint64{forkFlags}, allowed},   // glibc fork
		{"clone", []uint64{cloneNewUser | 0x40000000 | forkFlags}, eperm},
		{"clone", []uint64{high32 | cloneNewUser}, eperm},
		{"unshare", []uint64{0x400}, allowed}, // CLONE_FILES
		{"clone3", []uint64{0, 88}, enosys},
		{"personality", []uint64{0}, allowed},
		{"personality", []uint64{0xffffffff}, allowed},
		{"personality", []uint64{^uint64(0)}, allowed}, // the kernel reads 0xffffffff: a query
		{"personality", []uint64{high32}, allowed},     // the kernel reads PER_LINUX
		{"personality", []uint64{6}, eperm},            // PER_BSD
		{"personality", []uint64{high32 | 6}, eperm},
		{"personality", []uint64{0x0040000}, eperm}, // ADDR_NO_RANDOMIZE
		{"read", []uint64{0, 0, 0}, allowed},
	}
	// CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME
	for _, ns := range []uint64{0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000, 0x40000000, 0x80} {
		calls = append(calls, call{"unshare", []uint64{ns}, eperm}, call{"clone", []uint64{ns | forkFlags}, eperm})
	}
	for _, name := range []string{"io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open",
		"keyctl", "add_key", "request_key", "kexec_load", "kexec_file_load", "init_module", "finit_module",
		"delete_module", "userfaultfd", "open_by_handle_at", "mount", "umount2", "pivot_root", "move_mount",
		"open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "setns"} {
		calls = append(calls, call{name, nil, eperm})
	}
	checkCalls(t, "Default", Default(), calls)
}

// The 32 personality rules must refuse every value but PER_LINUX and the
// query, judged on the 32 bits the kernel reads.
func TestDefaultPersonalityExhaustiveBits(t *testing.T) {
	p := Default()
	check := func(v uint64) {
		want := eperm
		if low := uint32(v); low == 0 || low == 0xffffffff {
			want = allowed
		}
		if got := decide(t, p, "personality", v); got != want {
			t.Errorf("personality(%#x) = %s, want %s", v, got, want)
		}
	}
	for i := range 32 {
		check(1 << i)
		check(0xffffffff &^ (1 << i))
		check(uint64(0xdead)<<32 | 1<<i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		check(r.Uint64())
		check(r.Uint64() &^ 0xffffffff)
	}
}

func ptr[T any](v T) *T { return &v }

func FuzzParse(f *testing.F) {
	f.Add(profiles.Seccomp())
	f.Add([]byte(`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["socketpair", "read"], "action": "SCMP_ACT_ALLOW"}]}`))
	f.Add([]byte(rule(`{"names": ["socket"], "action": "SCMP_ACT_KILL", "args": [{"index": 0, "value": 2, "op": "SCMP_CMP_EQ"}]}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, "fuzz.json")
		if err != nil {
			var pe *ProfileError
			if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), `seccomp profile "fuzz.json": `) {
				t.Fatalf("Parse error %q is not a *ProfileError naming the profile", err)
			}
			return
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := Parse(again, "again.json")
		if err != nil {
			t.Fatalf("a parsed profile does not parse again: %v\n%s", err, again)
		}
		if diff := cmp.Diff(p, q, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip mismatch (-first +second):\n%s", diff)
		}
		if err := validate(WithNetworkDeny(p), ""); err != nil {
			t.Fatalf("WithNetworkDeny made a valid profile invalid: %v\n%s", err, data)
		}
	})
}

// BenchmarkDefault is the other per-exec cost of the seccomp stage:
// decoding and checking the embedded profile.
func BenchmarkDefault(b *testing.B) {
	for b.Loop() {
		Default()
	}
}
