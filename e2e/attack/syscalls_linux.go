package main

import (
	"fmt"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// probes are single system calls the seccomp filter must refuse. Each
// returns the errno (0 for success); arguments are chosen so that nothing
// lasting happens when the call is allowed.
var probes = map[string]func() unix.Errno{
	"tiocsti":      tiocsti(0x5412),
	"tiocsti-high": tiocsti(0x5412 | 1<<32),
	"io_uring":     raw(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&[120]byte{})), 0),
	"keyctl":       raw(unix.SYS_KEYCTL, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, 0, 0),
	"unshare-user": raw(unix.SYS_UNSHARE, unix.CLONE_NEWUSER, 0, 0),
	"mount":        raw(unix.SYS_MOUNT, 0, uintptr(unsafe.Pointer(&[]byte("/nonexistent-zsandbox\x00")[0])), 0),
	"bpf":          raw(unix.SYS_BPF, 5 /* BPF_PROG_LOAD */, 0, 0),
	"perf":         raw(unix.SYS_PERF_EVENT_OPEN, 0, 0, ^uintptr(0)),
	"vsock":        raw(unix.SYS_SOCKET, unix.AF_VSOCK, unix.SOCK_STREAM, 0),
	"socket-inet":  raw(unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM, 0),
	"socket-unix":  raw(unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM, 0),
	"pair-stream":  socketpair(unix.SOCK_STREAM),
	"pair-dgram":   socketpair(unix.SOCK_DGRAM | unix.SOCK_CLOEXEC),
	"personality":  raw(unix.SYS_PERSONALITY, 0x0006 /* PER_BSD */, 0, 0),
}

func raw(nr, a, b, c uintptr) func() unix.Errno {
	return func() unix.Errno {
		_, _, e := unix.RawSyscall(nr, a, b, c)
		return e
	}
}

func socketpair(typ int) func() unix.Errno {
	return func() unix.Errno {
		var fds [2]int32
		_, _, e := unix.RawSyscall6(unix.SYS_SOCKETPAIR, unix.AF_UNIX, uintptr(typ), 0, uintptr(unsafe.Pointer(&fds)), 0, 0)
		return e
	}
}

// tiocsti pushes a byte into the input of a fresh pseudo-terminal (never
// the caller's), with the request number as given: the filter must match
// the low 32 bits only.
func tiocsti(req uintptr) func() unix.Errno {
	return func() unix.Errno {
		m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
		if err != nil {
			return unix.ENODEV
		}
		defer m.Close()
		unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0)
		n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
		if err != nil {
			return unix.ENODEV
		}
		s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
		if err != nil {
			return unix.ENODEV
		}
		defer s.Close()
		c := byte('x')
		_, _, e := unix.Syscall(unix.SYS_IOCTL, s.Fd(), req, uintptr(unsafe.Pointer(&c)))
		return e
	}
}

// probe runs one named probe and prints "ok" or the errno's name.
func probe(name string) error {
	f, ok := probes[name]
	if !ok {
		return fmt.Errorf("unknown probe %q", name)
	}
	if e := f(); e != 0 {
		fmt.Println(unix.ErrnoName(e))
	} else {
		fmt.Println("ok")
	}
	return nil
}

// swapLoop exchanges two names over and over (renameat2 RENAME_EXCHANGE)
// for the given number of milliseconds: a directory and a symlink, to race
// another zsandbox that is resolving and mounting the directory.
func swapLoop(a string, rest []string) error {
	if len(rest) != 2 {
		return fmt.Errorf("usage: attack swap A B MILLISECONDS")
	}
	var ms int
	fmt.Sscan(rest[1], &ms)
	deadline := time.Now().Add(time.Duration(ms) * time.Millisecond)
	// An even number of exchanges leaves the names as they were.
	for n := 0; n%2 == 1 || time.Now().Before(deadline); n++ {
		if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, rest[0], unix.RENAME_EXCHANGE); err != nil {
			return fmt.Errorf("after %d swaps: %w", n, err)
		}
	}
	return nil
}
