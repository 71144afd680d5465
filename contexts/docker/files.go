package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/internal/shell"
)

// ReadFile reads a file through the archive API (a tar of one entry).
func (h *Handle) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := h.Alive(); err != nil {
		return nil, err
	}
	res, err := h.c.cli.CopyFromContainer(ctx, h.container, client.CopyFromContainerOptions{SourcePath: h.Abs(p)})
	if err != nil {
		return nil, h.fileErr("read", p, err)
	}
	defer res.Content.Close()
	tr := tar.NewReader(res.Content)
	hdr, err := tr.Next()
	if err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "read %q: %v", p, err)
	}
	if hdr.Typeflag != tar.TypeReg {
		return nil, contexts.Errorf(contexts.ErrUsage, "read %q: not a regular file", p)
	}
	return io.ReadAll(tr)
}

// WriteFile makes the parent directories as the run user (an exec with an
// argv, never a shell string), then puts a one-entry tar into the parent
// whose header carries the run user's ids: the archive API would
// otherwise leave the file owned by root, which the user cannot edit.
func (h *Handle) WriteFile(ctx context.Context, p string, data []byte, perm fs.FileMode) error {
	if err := h.Alive(); err != nil {
		return err
	}
	abs := h.Abs(p)
	dir, name := path.Split(abs)
	r, err := h.Exec(ctx, contexts.Cmd{Args: []string{"mkdir", "-p", "--", dir}})
	if err != nil {
		return err
	}
	if r.ExitCode != 0 {
		return contexts.Errorf(contexts.ErrDenied, "write %q: mkdir: %s", p, strings.TrimSpace(string(r.Stderr)))
	}
	uid, gid := numericUser(h.user)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: int64(perm.Perm()), Size: int64(len(data)), Uid: uid, Gid: gid})
	tw.Write(data)
	tw.Close()
	_, err = h.c.cli.CopyToContainer(ctx, h.container, client.CopyToContainerOptions{DestinationPath: dir, Content: &buf})
	return h.fileErr("write", p, err)
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
	r, err := h.Exec(ctx, contexts.Cmd{Args: shell.ListArgs(h.Abs(dir))})
	if err != nil {
		return nil, err
	}
	return shell.ListResult(dir, r)
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
	return h.c.apiErr(op+" "+strconvQuote(p), err)
}

func strconvQuote(s string) string { return strconv.Quote(s) }

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
