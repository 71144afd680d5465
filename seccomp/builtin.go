package seccomp

import (
	"embed"
	"runtime"
)

// The built-in profile, compiled ahead of time for the architectures that
// have a file under builtin/. Compiling it with libseccomp costs about half
// a millisecond per command; the embedded program is the same bytes
// (TestBuiltinIsCurrent recompiles and compares, and -update rewrites).
//
//go:embed builtin
var builtin embed.FS

// builtinName is the file holding the built-in program for this
// architecture, with or without the --network deny additions.
func builtinName(arch string, networkDeny bool) string {
	if networkDeny {
		return "builtin/network-deny-" + arch + ".bpf"
	}
	return "builtin/default-" + arch + ".bpf"
}

// Builtin returns the precompiled BPF program of Default (or of
// WithNetworkDeny(Default())) for this architecture, if there is one.
func Builtin(networkDeny bool) ([]byte, bool) {
	b, err := builtin.ReadFile(builtinName(runtime.GOARCH, networkDeny))
	return b, err == nil && len(b) > 0
}
