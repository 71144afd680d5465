package sandbox

import (
	"bytes"
	"strings"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/plan"
	"github.com/zsandbox/zsandbox/seccomp"
)

// noCgo is seccomp.Compile in a build without cgo.
func noCgo(*specs.LinuxSeccomp) ([]byte, error) { return nil, seccomp.ErrUnsupported }

// TestSeccompWithoutCgo: a cgo-free build runs the precompiled built-in
// program where it has one (amd64), and elsewhere (arm64 today) refuses
// with 127 and the fix instead of running without a filter; a user
// profile it cannot compile is refused the same way, on every
// architecture.
func TestSeccompWithoutCgo(t *testing.T) {
	user := seccomp.Default()
	tests := []struct {
		name    string
		sc      plan.Seccomp
		arch    string
		wantErr string // "" for the precompiled program
	}{
		{"amd64 built-in", plan.Seccomp{}, "amd64", ""},
		{"amd64 built-in, network deny", plan.Seccomp{Sockets: seccomp.Sockets{Network: true, Unix: true}}, "amd64", ""},
		{"arm64 has none", plan.Seccomp{}, "arm64", "no precompiled seccomp program for linux/arm64"},
		{"riscv64 has none", plan.Seccomp{Sockets: seccomp.Sockets{Network: true, Unix: true}}, "riscv64", "no precompiled seccomp program for linux/riscv64"},
		{"user profile on amd64", plan.Seccomp{User: user}, "amd64", "cannot compile a profile"},
		{"user profile on arm64", plan.Seccomp{User: user}, "arm64", "cannot compile a profile"},
	}
	for _, tt := range tests {
		bpf, err := compileSeccompFor(tt.sc, tt.arch, noCgo)
		if tt.wantErr == "" {
			want, _ := seccomp.BuiltinFor(tt.arch, tt.sc.Sockets)
			if err != nil || len(bpf) == 0 || !bytes.Equal(bpf, want) {
				t.Errorf("%s: %d bytes, %v; want the precompiled program", tt.name, len(bpf), err)
			}
			continue
		}
		var out bytes.Buffer
		exit.Print(&out, err)
		if bpf != nil || exit.Code(err) != exit.SandboxCode || !strings.Contains(out.String(), tt.wantErr) ||
			!strings.Contains(out.String(), "the command did not run") || !strings.Contains(out.String(), "zsandbox: hint: ") {
			t.Errorf("%s: exit %d, printed:\n%s\nwant 127 naming %q, with a hint", tt.name, exit.Code(err), out.String(), tt.wantErr)
		}
	}
}
