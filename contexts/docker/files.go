package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"io/fs"
	"path"
	"strconv"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/shell"
)

// ReadFile reads a file with the run user's rights (the archive API
// would read as the daemon, root).
func (h *Handle) ReadFile(ctx context.Context, p string) ([]byte, error) {
	return shell.ReadFile(ctx, h.Exec, h.Abs(p), p)
}

// WriteFile writes a file as the run user: it owns the file (in a
// bind-mounted workspace, the caller does), and the user's rights and
// read-only mounts apply as they do to commands. The archive API would
// write as root with the daemon's privileges.
func (h *Handle) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	return shell.WriteFile(ctx, h.Exec, h.Abs(p), p, data, perm)
}

// numericUser parses "uid[:gid]"; names (resolved by the image) give 0.
func numericUser(u string) (uid, gid int) {
	us, gs, _ := strings.Cut(u, ":")
	uid, _ = strconv.Atoi(us)
	gid, err := strconv.Atoi(gs)
	if err != nil {
		gid = uid
	}
	return uid, gid
}

// ListFiles lists a directory with an exec (the API has no listing).
func (h *Handle) ListFiles(ctx context.Context, dir string) ([]contexts.FileInfo, error) {
	return shell.ListFiles(ctx, h.Exec, h.Abs(dir), dir)
}

func (h *Handle) fileErr(op, p string, err error) error {
	switch {
	case err == nil:
		return nil
	case cerrdefs.IsNotFound(err):
		return contexts.Errorf(contexts.ErrNotFound, "%s %q: %v", op, p, err)
	case cerrdefs.IsInvalidArgument(err), cerrdefs.IsPermissionDenied(err),
		// dockerd 20.10 answers 500 to a write into a read-only mount
		strings.Contains(err.Error(), "read-only"):
		return contexts.Errorf(contexts.ErrDenied, "%s %q: %v", op, p, err)
	}
	return h.c.apiErr(op+" "+strconv.Quote(p), err)
}

// ownCwd gives a working directory that Docker made (root-owned) to the
// run user, so that commands can write where they start. The daemon
// extracts archives with full privileges, so a directory entry with the
// user's ids re-owns it; a directory the user can already write (/tmp, a
// bind mount) is left alone.
func (h *Handle) ownCwd(ctx context.Context) error {
	if h.user == "" {
		return nil
	}
	r, err := h.Exec(ctx, contexts.Cmd{Args: []string{"test", "-w", h.St.Cwd}})
	if err != nil || r.ExitCode == 0 {
		return err
	}
	uid, gid := numericUser(h.user)
	dir, name := path.Split(path.Clean(h.St.Cwd))
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755, Uid: uid, Gid: gid})
	tw.Close()
	_, err = h.c.cli.CopyToContainer(ctx, h.container, client.CopyToContainerOptions{DestinationPath: dir, Content: &buf})
	return h.fileErr("own the working directory", h.St.Cwd, err)
}
