//go:build !linux || !cgo

package seccomp

import specs "github.com/opencontainers/runtime-spec/specs-go"

// Compile needs libseccomp, so Linux and cgo; here it returns ErrUnsupported.
func Compile(p *specs.LinuxSeccomp) ([]byte, error) { return nil, ErrUnsupported }
