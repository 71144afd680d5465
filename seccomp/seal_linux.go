//go:build linux

package seccomp

// Sealing and handing over a compiled program needs no cgo: a build
// without it runs exec with the built-in (precompiled) program; only
// compiling a profile (compile_linux.go) needs libseccomp.

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// maxInsns is BPF_MAXINSNS: the kernel refuses a longer filter.
const maxInsns = 4096

// insnSize is the size of one BPF instruction (struct sock_filter).
const insnSize = 8

// checkProgram refuses what the kernel would: a partial instruction, an
// empty program, more than BPF_MAXINSNS instructions.
func checkProgram(bpf []byte) error {
	n := len(bpf) / insnSize
	switch {
	case len(bpf)%insnSize != 0:
		return fmt.Errorf("seccomp: BPF program of %d bytes is not a whole number of instructions", len(bpf))
	case n == 0:
		return errors.New("seccomp: empty BPF program")
	case n > maxInsns:
		return fmt.Errorf("seccomp: BPF program has %d instructions, more than the kernel's limit of %d", n, maxInsns)
	}
	return nil
}

// SealedFD returns a memfd holding bpf, sealed against any change, with its
// offset at 0, for bwrap --seccomp FD (pass it as an inherited file, e.g. in
// exec.Cmd.ExtraFiles). Sealing means the program bwrap installs is the one
// Compile produced, whoever else holds the descriptor.
func SealedFD(bpf []byte) (*os.File, error) {
	if err := checkProgram(bpf); err != nil {
		return nil, err
	}
	f, err := memfd("zsandbox-seccomp", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, err
	}
	if err := fill(f, bpf); err != nil {
		f.Close()
		return nil, fmt.Errorf("seccomp: sealed memfd: %w", err)
	}
	return f, nil
}

func fill(f *os.File, bpf []byte) error {
	if _, err := f.Write(bpf); err != nil {
		return err
	}
	const seals = unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		return fmt.Errorf("add seals: %w", err)
	}
	_, err := f.Seek(0, io.SeekStart)
	return err
}

// memfd creates a memfd that can never be made executable where the kernel
// offers that (MFD_NOEXEC_SEAL, Linux 6.3); older kernels refuse the flag
// with EINVAL, and the file holds data either way.
func memfd(name string, flags int) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, flags|unix.MFD_NOEXEC_SEAL)
	if errors.Is(err, unix.EINVAL) {
		fd, err = unix.MemfdCreate(name, flags)
	}
	if err != nil {
		return nil, fmt.Errorf("seccomp: memfd_create: %w", err)
	}
	return os.NewFile(uintptr(fd), name), nil
}
