package contexts

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/zsandbox/zsandbox/policy"
)

// CheckMounts returns mounts with each source made absolute and free of
// symlinks, for a container context to hand its runtime. The runtime (the
// Docker daemon, as root) follows every symlink in a source on the host,
// and a container writes the bind-mounted directory: an earlier run could
// have made workspace/data a symlink to / or ~ (inside the container it
// points nowhere), and the next `--mount ./data:/data` would bind that
// host directory, writable. So a symlink on the way is followed only where
// no container could have made it (see trustedLink); otherwise the mount
// is refused, naming the real directory. A source that exposes a hidden
// path (contains it or lies in it: zctx's own state, whose records say how
// later commands are isolated) is refused too.
func CheckMounts(mounts []Mount, hide []string) ([]Mount, error) {
	out := make([]Mount, 0, len(mounts))
	for _, m := range mounts {
		src, err := realSource(m.Source)
		if err != nil {
			return nil, err
		}
		for _, h := range hide {
			// Where it really is, whoever made the links on the way
			// (~/.local/state -> /tmp/x puts zctx's state under /tmp).
			if real, err := filepath.EvalSymlinks(h); err == nil {
				h = real
			}
			if policy.Within(h, src) || policy.Within(src, h) {
				return nil, Errorf(ErrDenied, "mount %q: it would expose the hidden path %q to the container, which could read or rewrite it", m.Source, h).
					WithHint("mount a directory that does not hold it (zctx keeps its state in $ZCTX_STATE_DIR, else $XDG_STATE_HOME/zctx: move it elsewhere)")
			}
		}
		m.Source = src
		out = append(out, m)
	}
	return out, nil
}

// realSource resolves p component by component, as the kernel would,
// refusing a symlink that trustedLink does not vouch for.
func realSource(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", Errorf(ErrUsage, "mount %q: %v", p, err)
	}
	done, rest := "/", strings.Split(abs, "/")
	for hops := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, name)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", Errorf(ErrNotFound, "mount %q: %s does not exist", p, next)
			}
			return "", Errorf(ErrUnavailable, "mount %q: %v", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		target, err := os.Readlink(next)
		if err == nil && !trustedLink(next, fi) {
			real, _ := filepath.EvalSymlinks(abs)
			return "", Errorf(ErrDenied, "mount %q goes through the symlink %s, which a container could have made (the runtime would follow it on the host)", p, next).
				WithHint("name the real directory (" + real + ") if it is the one you mean")
		}
		if hops++; err != nil || hops > 40 {
			return "", Errorf(ErrUnavailable, "mount %q: cannot resolve %s", p, next)
		}
		if filepath.IsAbs(target) {
			done = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return done, nil
}

// trustedLink vouches for the system's own links (/var/run -> /run, /lib
// -> usr/lib, macOS's /tmp, /var, /etc): root's, in /, /usr or /var, which
// root owns and no group or other may write. A container could have made
// none of them unless the user mounted / or /usr or /var writable.
func trustedLink(link string, fi fs.FileInfo) bool {
	dir := filepath.Dir(link)
	if dir != "/" && dir != "/usr" && dir != "/var" {
		return false
	}
	dfi, err := os.Stat(dir)
	if err != nil {
		return false
	}
	ls, ok1 := fi.Sys().(*syscall.Stat_t)
	ds, ok2 := dfi.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && ls.Uid == 0 && ds.Uid == 0 && dfi.Mode().Perm()&0o022 == 0
}
