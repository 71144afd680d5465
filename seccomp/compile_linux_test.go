//go:build linux && cgo

package seccomp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

func mustCompile(t testing.TB, p *specs.LinuxSeccomp) []byte {
	t.Helper()
	bpf, err := Compile(p)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return bpf
}

func TestCompileDefaultProfiles(t *testing.T) {
	for name, p := range map[string]*specs.LinuxSeccomp{
		"default":      Default(),
		"network-deny": WithNetworkDeny(Default()),
	} {
		bpf := mustCompile(t, p)
		t.Logf("%s: %d instructions", name, len(bpf)/insnSize)
	}
}

func TestCompileErrors(t *testing.T) {
	otherArch := specs.ArchPPC64LE
	if runtime.GOARCH == "ppc64le" {
		otherArch = specs.ArchS390X
	}
	tests := []struct {
		name    string
		profile string
		field   string // of the *ProfileError
	}{
		{"invalid profile", `{"defaultAction": "SCMP_ACT_FOO"}`, "defaultAction"},
		{"typo in a deny rule", rule(`{"names": ["bpf", "perf_event_opn"], "action": "SCMP_ACT_ERRNO"}`), "syscalls[0].names[1]"},
		{"native architecture not listed",
			`{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["` + string(otherArch) + `"]}`, "architectures"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p specs.LinuxSeccomp
			// Decode without Parse: Compile must check profiles built in code.
			if err := json.Unmarshal([]byte(tt.profile), &p); err != nil {
				t.Fatal(err)
			}
			_, err := Compile(&p)
			var pe *ProfileError
			if !errors.As(err, &pe) || pe.Field != tt.field {
				t.Fatalf("Compile error = %v, want a *ProfileError for field %s", err, tt.field)
			}
			t.Logf("%v", err)
		})
	}
	if _, err := Compile(nil); err == nil {
		t.Error("Compile(nil) succeeded")
	}
}

// Names that cannot be enforced are skipped only where skipping cannot
// loosen the filter: in permissive rules, and for syscalls that do not exist
// on the native ABI.
func TestCompileSkipsOnlyHarmlessNames(t *testing.T) {
	tests := []struct {
		name, with, without string
	}{
		{"unknown name in an allow rule",
			`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read", "no_such_syscall"], "action": "SCMP_ACT_ALLOW"}]}`,
			`{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]}`},
	}
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" {
		tests = append(tests, struct{ name, with, without string }{"i386-only syscall in a deny rule",
			rule(`{"names": ["bpf", "socketcall"], "action": "SCMP_ACT_ERRNO"}`),
			rule(`{"names": ["bpf"], "action": "SCMP_ACT_ERRNO"}`)})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			with := mustCompile(t, mustParse(t, tt.with))
			without := mustCompile(t, mustParse(t, tt.without))
			if !bytes.Equal(with, without) {
				t.Errorf("the skipped name changed the program (%d vs %d instructions)", len(with)/insnSize, len(without)/insnSize)
			}
		})
	}
}

// bwrap must install exactly the program Compile produced: the memfd is
// sealed, so nobody holding the descriptor can change it.
func TestSealedFD(t *testing.T) {
	bpf := mustCompile(t, Default())
	f, err := SealedFD(bpf)
	if err != nil {
		t.Fatalf("SealedFD: %v", err)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, bpf) {
		t.Fatalf("reading the memfd from its offset: %d bytes, err %v; want the %d-byte program", len(got), err, len(bpf))
	}
	if _, err := f.WriteAt([]byte{0}, 0); !errors.Is(err, unix.EPERM) {
		t.Errorf("write to the sealed memfd: %v, want EPERM", err)
	}
	if err := f.Truncate(0); !errors.Is(err, unix.EPERM) {
		t.Errorf("truncate of the sealed memfd: %v, want EPERM", err)
	}
	if _, err := f.WriteAt([]byte{0}, int64(len(bpf))); !errors.Is(err, unix.EPERM) {
		t.Errorf("append to the sealed memfd: %v, want EPERM", err)
	}
	reopened, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), os.O_WRONLY, 0)
	if err == nil {
		_, err = reopened.Write([]byte{0})
		reopened.Close()
	}
	if !errors.Is(err, unix.EPERM) {
		t.Errorf("write through a reopened /proc/self/fd: %v, want EPERM", err)
	}
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_FUTURE_WRITE); !errors.Is(err, unix.EPERM) {
		t.Errorf("adding a seal after F_SEAL_SEAL: %v, want EPERM", err)
	}
	if flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("F_GETFD = %#x, %v; want FD_CLOEXEC so only a deliberately passed copy leaks into children", flags, err)
	}
}

func TestSealedFDRefusesPartialPrograms(t *testing.T) {
	for _, bpf := range [][]byte{nil, {1, 2, 3}} {
		if f, err := SealedFD(bpf); err == nil {
			f.Close()
			t.Errorf("SealedFD(%d bytes) succeeded", len(bpf))
		}
	}
}

// BenchmarkCompile is the per-exec cost of the seccomp stage: libseccomp
// builds the filter and exports it.
func BenchmarkCompile(b *testing.B) {
	for name, p := range map[string]*specs.LinuxSeccomp{
		"default":      Default(),
		"network-deny": WithNetworkDeny(Default()),
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				mustCompile(b, p)
			}
		})
	}
}
