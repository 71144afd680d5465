//go:build unix

package policy

import (
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// creatable reports whether the caller, and so the sandboxed command (the
// same uid, no capabilities), could create path: its nearest existing
// ancestor is writable, or the caller owns it and could make it writable
// with chmod. A missing protected path the command cannot create needs no
// placeholder, and zsandbox could not make one there either (a checkout
// owned by someone else, a read-only file system). It also returns that
// ancestor (the anchor): the path stays uncreatable only while the anchor
// stays where it is, so the runner pins it (see Protected.Anchor).
func creatable(path string) (anchor string, ok bool) {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err == nil {
			if !fi.IsDir() {
				return d, false
			}
			switch err := unix.Access(d, unix.W_OK); err {
			case nil:
				return d, true
			case unix.EROFS:
				return d, false // read-only whatever chmod does
			}
			st, ok := fi.Sys().(*syscall.Stat_t)
			return d, ok && int(st.Uid) == os.Geteuid()
		}
		if d == "/" {
			return d, false
		}
	}
}
