//go:build !unix

package policy

import "os"

// ownerOf knows no owners here: every trust check fails closed.
func ownerOf(os.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }
