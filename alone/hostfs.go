package alone

import "os"

// Kind reports what is at a path on this host for ReadRules and Rules,
// without following a final symlink: ok is false for a symlink or
// nothing.
func Kind(path string) (isDir, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return false, false
	}
	return fi.IsDir(), fi.Mode()&os.ModeSymlink == 0
}

// List lists a directory on this host for ReadRules and Rules, sorted; a
// directory that cannot be listed yields nothing, so nothing beneath it
// is granted.
func List(dir string) []string {
	ents, _ := os.ReadDir(dir)
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names
}
