package policy

import (
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
