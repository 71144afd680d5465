//go:build !linux

package seccomp

import "os"

// SealedFD needs memfd, so Linux; here it returns ErrUnsupported.
func SealedFD(bpf []byte) (*os.File, error) { return nil, ErrUnsupported }
