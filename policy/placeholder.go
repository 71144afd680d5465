package policy

import (
	"io"
	"os"
	"time"
)

// PlaceholderTime marks the placeholders zsandbox puts where a protected
// or hidden path does not exist yet (see bwrap.MakePlaceholders): a
// read-only file (empty, or "." for git's commondir) or an empty read-only
// directory, whose modification time is the epoch.
var PlaceholderTime = time.Unix(0, 0)

// IsPlaceholder reports whether fi describes such a placeholder. Another
// run's placeholder is not a real file: it is shared (and locked) like a
// path that does not exist, never masked as if it were a credential.
func IsPlaceholder(fi os.FileInfo) bool {
	if !fi.ModTime().Equal(PlaceholderTime) {
		return false
	}
	if fi.IsDir() {
		return fi.Mode().Perm() == 0o555
	}
	return fi.Mode().IsRegular() && fi.Size() <= 2 && fi.Mode().Perm() == 0o444
}

// PlaceholderAt reports whether path is such a placeholder. A directory
// one is empty too: a real directory can carry the mark (extracted from
// an archive made with mtime 0, then made read-only), and taken for a
// placeholder a credentials directory was left unmasked, and the guard
// asked the user to remove it.
func PlaceholderAt(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !IsPlaceholder(fi) {
		return false
	}
	if !fi.IsDir() {
		return true
	}
	d, err := os.Open(path)
	if err != nil {
		return false
	}
	defer d.Close()
	_, err = d.Readdirnames(1)
	return err == io.EOF
}
