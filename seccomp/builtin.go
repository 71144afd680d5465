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

// builtinSockets are the socket rule sets with a precompiled program.
var builtinSockets = []Sockets{{}, {Unix: true}, {Network: true, Unix: true}, {Network: true}, {Inet: true, Unix: true}, {Inet: true}}

// builtinName is the file holding the built-in program for this
// architecture with the socket rules s.
func builtinName(arch string, s Sockets) string {
	name := "default"
	switch {
	case s.Network && s.Inet:
		return "" // Network refuses every IP family: no such program
	case s.Inet && s.Unix:
		name = "allowlist"
	case s.Inet:
		name = "allowlist-unix-allow"
	case s.Network && s.Unix:
		name = "network-deny"
	case s.Network:
		name = "network-deny-unix-allow"
	case s.Unix:
		name = "unix-deny"
	}
	return "builtin/" + name + "-" + arch + ".bpf"
}

// Builtin returns the precompiled BPF program of WithSockets(Default(), s)
// for this architecture, if there is one.
func Builtin(s Sockets) ([]byte, bool) {
	b, err := builtin.ReadFile(builtinName(runtime.GOARCH, s))
	return b, err == nil && len(b) > 0
}
