package sandbox

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/exit"
)

// readStream says what standard descriptor fd is.
func readStream(fd int) (stdStream, error) {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return stdStream{}, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return stdStream{}, err
	}
	_, terr := unix.IoctlGetTermios(fd, getTermios)
	s := stdStream{fd: fd, writable: flags&unix.O_ACCMODE != unix.O_RDONLY}
	free := st.Mode&unix.S_IFMT == unix.S_IFSOCK && freeSocket(fd)
	s.kind, s.what = kindOf(st.Mode, st.Rdev, flags&unix.O_PATH != 0, terr == nil, free)
	if s.kind == kindFile {
		s.path, s.nlink = filePath(fd, st), uint64(st.Nlink)
	}
	return s, nil
}

// freeSocket reports whether socket fd can still choose whom it talks to:
// a datagram socket sends to any address (sendto on a connected unix or UDP
// one too), an unconnected stream socket can connect. A connected stream or
// seqpacket socket, or a listening one, cannot. What cannot be asked counts
// as free.
func freeSocket(fd int) bool {
	if on, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err == nil && on == 1 {
		return false
	}
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil || typ != unix.SOCK_STREAM && typ != unix.SOCK_SEQPACKET {
		return true
	}
	_, err = unix.Getpeername(fd)
	return err != nil
}

// filePath is where the file open on fd is, if that path still names it.
func filePath(fd int, st unix.Stat_t) string {
	p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	var at unix.Stat_t
	if err != nil || unix.Stat(p, &at) != nil || at.Dev != st.Dev || at.Ino != st.Ino {
		return ""
	}
	return p
}

// planStdio reads the three descriptors and plans each. fenced, asked only
// for a file on stdin, says whether reopening it is fenced.
func planStdio(fenced func(stdStream) bool, inPlace bool) (stdio, error) {
	var plan stdio
	for fd := range plan {
		s, err := readStream(fd)
		if err != nil {
			return plan, exit.NotRun(fmt.Sprintf("%s: %v", streamNames[fd], err))
		}
		f := fd == 0 && s.kind == kindFile && !inPlace && fenced(s)
		if plan[fd], err = stdioPlan(s, f, inPlace); err != nil {
			return plan, err
		}
	}
	return plan, nil
}

// copyIn returns what the command gets as stdin: in itself, or the read
// end of a pipe that a goroutine fills from in. The goroutine is not
// waited for: a device may block in read after the command is gone.
func copyIn(in *os.File, use streamUse) (*os.File, error) {
	if use == usePass {
		return in, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, exit.NotRun("stdin pipe: " + err.Error())
	}
	go func() {
		io.Copy(w, readerOnly{in})
		w.Close()
	}()
	return r, nil
}
