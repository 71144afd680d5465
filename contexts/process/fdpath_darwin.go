package process

import (
	"bytes"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fdPath is the path the kernel gives the opened file (F_GETPATH).
func fdPath(f *os.File) (string, error) {
	buf := make([]byte, unix.PathMax)
	_, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), unix.F_GETPATH, uintptr(unsafe.Pointer(&buf[0])))
	if errno != 0 {
		return "", errno
	}
	return string(buf[:bytes.IndexByte(buf, 0)]), nil
}
