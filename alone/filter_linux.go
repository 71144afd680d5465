//go:build linux

package alone

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp loader lives here rather than in package seccomp, which needs
// cgo (libseccomp) to compile filters: the loader needs only the kernel,
// and package landlock stays free of cgo.

// maxFilterInsns is BPF_MAXINSNS: the kernel refuses a longer program.
const maxFilterInsns = 4096

// filterProgram checks that bpf is a classic BPF program (struct
// sock_filter, in native byte order, as seccomp.Compile exports it) and
// copies it into instructions.
func filterProgram(bpf []byte) ([]unix.SockFilter, error) {
	size := int(unsafe.Sizeof(unix.SockFilter{}))
	n := len(bpf) / size
	if len(bpf) == 0 || len(bpf)%size != 0 || n > maxFilterInsns {
		return nil, fmt.Errorf("--backend landlock: seccomp filter: %d bytes is not a BPF program of 1 to %d instructions",
			len(bpf), maxFilterInsns)
	}
	prog := make([]unix.SockFilter, n)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(bpf)), bpf)
	return prog, nil
}

// loadFilter installs prog on the calling thread; no_new_privs must be set.
// Without SECCOMP_FILTER_FLAG_TSYNC on purpose: see Exec. The kernel
// checks the program; a filter it refuses is an error, never a command run
// without one.
func loadFilter(prog []unix.SockFilter) error {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("seccomp(SECCOMP_SET_MODE_FILTER): %w", errno)
	}
	return nil
}
