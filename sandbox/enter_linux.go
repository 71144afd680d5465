package sandbox

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/exit"
)

// checkEnterable refuses a working directory the command could not enter.
// Inside the sandbox every capability is gone, root's too, so a directory
// down to the cwd without search permission for the caller's uid makes
// bwrap fail to chdir, with a message that points at namespaces instead.
// A directory with an ACL is left to the kernel.
func checkEnterable(cwd string) error {
	groups := []uint32{uint32(os.Getegid())}
	if gs, err := unix.Getgroups(); err == nil {
		for _, g := range gs {
			groups = append(groups, uint32(g))
		}
	}
	uid := uint32(os.Geteuid())
	for d := cwd; ; d = filepath.Dir(d) {
		var st unix.Stat_t
		if unix.Stat(d, &st) == nil && !hasACL(d) && !searchable(st.Mode&0o777, st.Uid, st.Gid, uid, groups) {
			return exit.Usagef("the working directory %q cannot be entered by the command, which runs without capabilities (root's too): %q lacks search permission for uid %d; chmod it, or run from another directory", cwd, d, uid)
		}
		if d == "/" {
			return nil
		}
	}
}

func hasACL(path string) bool {
	n, err := unix.Getxattr(path, "system.posix_acl_access", nil)
	return err == nil && n > 0
}
