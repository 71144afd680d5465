//go:build linux || darwin

package sandbox

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/policy"
)

// The command inherits zsandbox's stdin, stdout and stderr, and a
// descriptor is more than a stream: through /proc/self/fd/N the command can
// reopen the file it names with other rights (write the caller's input
// file, read or truncate the caller's log), and a directory descriptor
// reaches every file below it, hidden ones included, on the host's mounts
// rather than the sandbox's. So each standard descriptor is looked at
// before anything starts, and reaches the command only as a stream:
//
//   - a pipe, a socket tied to one peer (connected stream or seqpacket, or
//     listening), a terminal or a harmless device (/dev/null, /dev/zero,
//     /dev/full, /dev/random, /dev/urandom) passes as it is: reopening it
//     gives nothing more;
//   - a socket that can still choose its peer (a datagram socket sends to
//     any address, an unconnected one can connect(2) anywhere) is copied
//     through a pipe: passed, it would reach the host's unix sockets and
//     the network past --network deny and the unix-socket rule;
//   - a regular file or any other device is copied through a pipe by
//     zsandbox; stdin passes as it is only when it is read-only and a
//     reopening for writing gets no more than the policy (fencedReopen),
//     so `while read ...; do zsandbox exec ...; done < list` keeps working;
//   - a directory, an O_PATH descriptor or anything else refuses the run
//     (exit 2): no command reads from or writes to one.
//
// The Landlock-only backend execs the command in place and cannot copy;
// there Landlock checks every reopening against the whole policy (reads of
// hidden paths included), and a stdin open for writing or a socket that can
// choose its peer is refused.

// streamKind is what one standard descriptor is, for stdioPlan.
type streamKind int

const (
	kindStream     streamKind = iota // nothing to reopen beyond the stream
	kindFile                         // a regular file or a device: reopenable
	kindFreeSocket                   // a socket that can choose its peer
	kindRefused                      // a directory, an O_PATH descriptor, other
)

// stdStream is one of zsandbox's standard descriptors.
type stdStream struct {
	fd       int
	kind     streamKind
	what     string // for kindRefused: "a directory", "an O_PATH descriptor"
	writable bool   // opened for writing (O_WRONLY or O_RDWR)
	// For a file: the path it is at (checked to be that very file; ""
	// when unknown) and its number of links.
	path  string
	nlink uint64
}

// streamUse is how a standard descriptor reaches the command.
type streamUse int

const (
	usePass streamUse = iota // the descriptor itself
	useCopy                  // a pipe zsandbox copies to or from it
)

var streamNames = [3]string{"stdin", "stdout", "stderr"}

// kindOf classifies a descriptor from fstat's mode and rdev, whether it is
// an O_PATH descriptor, whether it is a terminal and, for a socket, whether
// it can choose its peer.
func kindOf(mode uint32, rdev uint64, oPath, terminal, freeSocket bool) (streamKind, string) {
	if oPath {
		return kindRefused, "an O_PATH descriptor"
	}
	switch mode & unix.S_IFMT {
	case unix.S_IFSOCK:
		if freeSocket {
			return kindFreeSocket, ""
		}
		return kindStream, ""
	case unix.S_IFIFO:
		return kindStream, ""
	case unix.S_IFCHR:
		if terminal || harmlessDevice(rdev) {
			return kindStream, ""
		}
		return kindFile, ""
	case unix.S_IFREG, unix.S_IFBLK:
		return kindFile, ""
	case unix.S_IFDIR:
		return kindRefused, "a directory"
	}
	return kindRefused, fmt.Sprintf("a file of type %#o", mode&unix.S_IFMT)
}

// harmlessDevice: /dev/null, /dev/zero, /dev/full, /dev/random and
// /dev/urandom (Linux's memory devices, major 1), whose reopening gives
// nothing.
func harmlessDevice(rdev uint64) bool {
	if unix.Major(rdev) != 1 {
		return false
	}
	switch unix.Minor(rdev) {
	case 3, 5, 7, 8, 9:
		return true
	}
	return false
}

// stdioPlan decides how s reaches the command. fenced: Landlock stops the
// command writing outside the writable roots; inPlace: the Landlock-only
// backend, which cannot copy.
func stdioPlan(s stdStream, fenced, inPlace bool) (streamUse, error) {
	name := streamNames[s.fd]
	switch {
	case s.kind == kindRefused:
		return 0, exit.Usagef("%s is %s: through /proc/self/fd/%d the command could reach what it names, past the sandbox (hidden files included); the command did not run; redirect it (%s/dev/null, or a file)",
			name, s.what, s.fd, redirect(s.fd))
	case s.kind == kindStream:
		return usePass, nil
	case s.kind == kindFreeSocket && inPlace:
		return 0, exit.Usagef("%s is a datagram or unconnected socket: the command could send it to, or connect it to, any address (the host's unix sockets, the network) past the sandbox; the command did not run; give it through a pipe (cmd | zsandbox exec ...)", name)
	case s.kind == kindFreeSocket:
		return useCopy, nil
	case inPlace && s.fd == 0 && s.writable:
		return 0, exit.Usagef("stdin is a file open for writing: the command could write it through the descriptor; the command did not run; give it read-only (<, not <>)")
	case inPlace, s.fd == 0 && fenced && !s.writable:
		return usePass, nil
	}
	return useCopy, nil
}

func redirect(fd int) string {
	if fd == 0 {
		return "<"
	}
	return fmt.Sprintf("%d>", fd)
}

// stdio is how zsandbox's three standard descriptors reach the command.
type stdio [3]streamUse

// fencedReopen reports whether reopening file s for writing gives the
// command no more than p, given that Landlock fences writes outside the
// writable roots: inside them the policy allows writes, except under
// protected and hidden paths, whose read-only mounts a descriptor (made
// outside the sandbox) does not pass through. A file whose path is
// unknown, or that has other links, may be one of those.
func fencedReopen(s stdStream, p *policy.Policy) bool {
	if s.path == "" || s.nlink != 1 || policy.WithinAny(s.path, p.ProtectedPaths()) {
		return false
	}
	for _, h := range p.Hidden {
		if policy.Within(s.path, h.Path) {
			return false
		}
	}
	return true
}

// readerOnly hides the *os.File, so os/exec copies through a pipe.
type readerOnly struct{ io.Reader }

// writerOnly hides the *os.File, so os/exec copies through a pipe. Two
// equal values (stdout and stderr on one file) share one pipe.
type writerOnly struct{ io.Writer }

// copyOutputs sends the outputs the plan copies through pipes. With hints
// on they already run through one unless they are a terminal, which
// passes anyway.
func (o *outputs) copyOutputs(plan stdio) {
	if plan[1] == useCopy && o.stdout == io.Writer(os.Stdout) {
		o.stdout = writerOnly{os.Stdout}
	}
	if plan[2] == useCopy && o.stderr == io.Writer(os.Stderr) {
		o.stderr = writerOnly{os.Stderr}
		if sameFile(os.Stdout, os.Stderr) {
			o.stderr = o.stdout // 2>&1: one pipe keeps the order
		}
	}
}
