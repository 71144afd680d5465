//go:build !linux || !cgo

package seccomp

import (
	"os"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// Compile needs libseccomp, so Linux and cgo; here it returns ErrUnsupported.
func Compile(p *specs.LinuxSeccomp) ([]byte, error) { return nil, ErrUnsupported }

// SealedFD needs memfd, so Linux; here it returns ErrUnsupported.
func SealedFD(bpf []byte) (*os.File, error) { return nil, ErrUnsupported }
