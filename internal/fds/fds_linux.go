//go:build linux

// Package fds is zsandbox's descriptor hygiene, shared by the runner
// (bwrap/), the stage 2 (landlock/) and the Landlock-only backend
// (alone/): opening a path with no symlink anywhere in it, and keeping
// every inherited descriptor from reaching the command.
package fds

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// OpenExact opens path (relative to dirfd, unix.AT_FDCWD for the cwd)
// with no symlink, and no magic link such as /proc/self/root, anywhere in
// it: what a concurrent command swapped into a parent directory is refused
// (ELOOP, EXDEV) instead of followed. With beneath, path may not leave
// dirfd either (no "..", no absolute path). flags get O_CLOEXEC.
func OpenExact(dirfd int, path string, flags int, beneath bool) (int, error) {
	resolve := uint64(unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS)
	if beneath {
		resolve |= unix.RESOLVE_BENEATH
	}
	return unix.Openat2(dirfd, path, &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: resolve})
}

// OpenExactFile is OpenExact as an *os.File named path.
func OpenExactFile(dirfd int, path string, flags int, beneath bool) (*os.File, error) {
	n, err := OpenExact(dirfd, path, flags, beneath)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(n), path), nil
}

// CloseInherited marks every descriptor above stderr close-on-exec. Go only
// sets it on files it opens itself; a descriptor zsandbox inherited (a
// caller's socket, a terminal, a credential file, the one bwrap executed
// the stage 2 from) would otherwise pass into the sandbox. (Closing them
// instead could pull a descriptor from under the Go runtime.) The error is
// close_range's, when /proc/self/fd cannot be walked either.
func CloseInherited() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	// Before Linux 5.11: walk the descriptor table.
	ents, rerr := os.ReadDir("/proc/self/fd")
	if rerr != nil {
		return err
	}
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && n > 2 {
			unix.CloseOnExec(n)
		}
	}
	return nil
}
