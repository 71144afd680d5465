package process

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/policy"
)

// The file calls run in this process, as the caller, so they enforce the
// sandbox's rules themselves. Every decision is taken on the object that
// was actually opened: its path comes back from the kernel (fdPath), so a
// symlink a sandboxed command planted (workspace/x -> ~/.ssh/id_rsa, or
// -> ~/.bashrc) cannot steer a read to a hidden file or a write outside
// the writable roots, and a swap between check and use changes nothing.

// ReadFile reads path unless it lies in a hidden path.
func (h *Handle) ReadFile(_ context.Context, path string) ([]byte, error) {
	p, err := h.filePolicy()
	if err != nil {
		return nil, err
	}
	f, err := openRead(h.Abs(path))
	if err != nil {
		return nil, fileErr("read", path, err)
	}
	defer f.Close()
	if err := readable(f, p); err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, fileErr("read", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, contexts.Errorf(contexts.ErrUsage, "read %q: not a regular file", path)
	}
	return io.ReadAll(f)
}

// ListFiles lists dir, leaving out entries that are hidden paths.
func (h *Handle) ListFiles(_ context.Context, dir string) ([]contexts.FileInfo, error) {
	p, err := h.filePolicy()
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(h.Abs(dir), os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, fileErr("list", dir, err)
	}
	defer f.Close()
	if err := readable(f, p); err != nil {
		return nil, err
	}
	real, _ := fdPath(f)
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, fileErr("list", dir, err)
	}
	out := make([]contexts.FileInfo, 0, len(entries))
	for _, e := range entries {
		if hiddenPath(filepath.Join(real, e.Name()), p) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed while listing
		}
		out = append(out, contexts.FileInfo{Name: e.Name(), Size: fi.Size(), Mode: fi.Mode(), IsDir: fi.IsDir()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// WriteFile writes data to path, creating missing parent directories,
// only inside the writable roots and never into a hidden or protected
// path, a symlink, or a file with other hard links.
func (h *Handle) WriteFile(_ context.Context, path string, data []byte, perm fs.FileMode) error {
	p, err := h.filePolicy()
	if err != nil {
		return err
	}
	abs := h.Abs(path)
	dir, err := openDirMaking(filepath.Dir(abs), p)
	if err != nil {
		return fileErr("write", path, err)
	}
	defer dir.Close()
	f, err := openWrite(dir, filepath.Base(abs), p, perm)
	if err != nil {
		return fileErr("write", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fileErr("write", path, err)
	}
	return fileErr("write", path, f.Close())
}

// filePolicy is the policy a command of this handle would get now.
func (h *Handle) filePolicy() (*policy.Policy, error) {
	if err := h.Alive(); err != nil {
		return nil, err
	}
	return h.resolve(h.spec("", nil, nil))
}

func openRead(abs string) (*os.File, error) {
	// O_NONBLOCK: a FIFO planted in place of a file must not hang us.
	return os.OpenFile(abs, os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
}

// readable refuses an opened file or directory inside a hidden path.
func readable(f *os.File, p *policy.Policy) error {
	real, err := fdPath(f)
	if err != nil {
		return contexts.Errorf(contexts.ErrDenied, "%q: cannot tell where it lies: %v", f.Name(), err)
	}
	if hiddenPath(real, p) {
		return contexts.Errorf(contexts.ErrDenied, "%q is hidden by the context (it resolves to %q)", f.Name(), real).
			WithHint("hidden paths hold credentials; they cannot be read through the context")
	}
	if hostOnly(real) {
		return contexts.Errorf(contexts.ErrDenied, "%q lies in the host's /proc (it resolves to %q), which commands do not see: they get their own", f.Name(), real).
			WithHint("run the command that reads it instead (zctx exec HANDLE -- cat PATH)")
	}
	return nil
}

// hostOnly says whether real lies in the host's /proc, which the sandbox
// replaces with its own: it holds this program's (and the agent's)
// environment, with the credentials zsandbox keeps from commands, and
// other processes' command lines. Reading it in-process would give a
// command, through its caller, what the command itself cannot get.
func hostOnly(real string) bool { return policy.Within(real, "/proc") }

func hiddenPath(real string, p *policy.Policy) bool {
	for _, hp := range p.Hidden {
		if policy.Within(real, hp.Path) {
			return true
		}
	}
	return false
}

// writable says why real may not be created or written, or "" if it may.
func writable(real string, p *policy.Policy) string {
	switch {
	case hiddenPath(real, p):
		return "is hidden by the context"
	case !policy.WithinAny(real, p.WritablePaths()):
		return "is outside the writable roots"
	}
	for _, pr := range p.Protected {
		if policy.Within(real, pr.Path) {
			return "is protected (code planted there could run later outside the sandbox)"
		}
	}
	return ""
}

func denied(real, why string, p *policy.Policy) error {
	return contexts.Errorf(contexts.ErrDenied, "%q %s", real, why).
		WithHint("writes are allowed only under " + strings.Join(p.WritablePaths(), ", ") + "; add a writable root (--writable PATH) to allow more")
}

// openDirMaking opens dir, making it and its missing parents inside the
// writable roots.
func openDirMaking(dir string, p *policy.Policy) (*os.File, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || dir == "/" {
		return f, err
	}
	parent, err := openDirMaking(filepath.Dir(dir), p)
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	real, err := childPath(parent, filepath.Base(dir))
	if err != nil {
		return nil, err
	}
	if why := writable(real, p); why != "" {
		return nil, denied(real, why, p)
	}
	if err := unix.Mkdirat(int(parent.Fd()), filepath.Base(dir), 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
		return nil, err
	}
	fd, err := unix.Openat(int(parent.Fd()), filepath.Base(dir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), real), nil
}

// openWrite opens name in dir for writing after checking where it lies.
// O_NOFOLLOW refuses a symlink at the last step; the link count refuses a
// hard link to a file elsewhere. Truncation comes only after the checks.
func openWrite(dir *os.File, name string, p *policy.Policy, perm fs.FileMode) (*os.File, error) {
	real, err := childPath(dir, name)
	if err != nil {
		return nil, err
	}
	if why := writable(real, p); why != "" {
		return nil, denied(real, why, p)
	}
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, contexts.Errorf(contexts.ErrDenied, "%q is a symlink; the context writes only regular files", real)
		}
		return nil, err
	}
	f := os.NewFile(uintptr(fd), real)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink > 1 {
		f.Close()
		return nil, contexts.Errorf(contexts.ErrDenied, "%q is not a regular file with a single link; the context does not write through it", real)
	}
	if err := unix.Ftruncate(fd, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// childPath is the real path of name inside the opened directory dir.
func childPath(dir *os.File, name string) (string, error) {
	real, err := fdPath(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(real, name), nil
}

func fileErr(op, path string, err error) error {
	var ce *contexts.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return contexts.Errorf(contexts.ErrNotFound, "%s %q: no such file or directory", op, path)
	}
	return contexts.Errorf(contexts.ErrUnavailable, "%s %q: %v", op, path, err)
}
