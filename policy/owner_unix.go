//go:build unix

package policy

import (
	"os"
	"syscall"
)

// ownerOf returns who owns what fi describes.
func ownerOf(fi os.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
