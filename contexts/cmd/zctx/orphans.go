package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/docker"
)

// A claim is how a zctx marks the containers it makes before their handle
// is saved (spawn) or while it uses them without saving one (run): a file
// .claim-<id> in the state directory holding its pid, and two labels on
// each container, the state directory's tag and the claim's id. A
// container of this state directory with neither a handle record nor a
// claim whose zctx still runs was left by a zctx killed in between (a
// SIGKILL skips every cleanup), and the next zctx that talks to that
// daemon removes it.
const (
	labelState = "io.zsandbox.zctx.state"
	labelClaim = "io.zsandbox.zctx.claim"
)

type claim struct{ dir, id, tag string }

func (c *claim) path() string { return claimPath(c.dir, c.id) }

func claimPath(dir, id string) string { return filepath.Join(dir, ".claim-"+id) }

// newClaim writes this process's claim.
func newClaim(dir string) (*claim, error) {
	tag, err := stateTag(dir, true)
	if err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "claim: %v", err)
	}
	id, err := contexts.NewID("c")
	if err != nil {
		return nil, err
	}
	c := &claim{dir: dir, id: id, tag: tag}
	f, err := os.OpenFile(c.path(), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "claim: %v", err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%d %s\n", os.Getpid(), pidNamespace()); err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "claim: %v", err)
	}
	return c, nil
}

func (c *claim) release() { os.Remove(c.path()) }

func (c *claim) labels() map[string]string {
	return map[string]string{labelState: c.tag, labelClaim: c.id}
}

// stateTag names a state directory in a label: a random id kept in the
// directory (made when create is set and there is none). It is not the
// directory's path: the same path is another state directory on another
// machine or in another mount namespace using the same daemon, and a
// tag anyone can work out would let an image's LABELs make its
// containers look like ours; either way the sweep would remove
// containers that are not this directory's orphans.
func stateTag(dir string, create bool) (string, error) {
	p := filepath.Join(dir, ".tag")
	if create {
		if err := newTag(p); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	tag := strings.TrimSpace(string(b))
	if !idPattern.MatchString(tag) {
		return "", fmt.Errorf("%s: not a tag", p)
	}
	return tag, nil
}

// pidNamespace names this process's pid namespace ("" where there is no
// /proc): a claim's pid means something only in the namespace it was
// written in.
func pidNamespace() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return ns
}

// claimed reports whether claim id is held by a zctx that still runs. A
// pid that was reused keeps the container, and so does a claim written
// in another pid namespace (a zctx in a container sharing this state
// directory), whose pid cannot be checked from here: wrongly kept beats
// wrongly removed.
func claimed(dir, id string) bool {
	b, err := os.ReadFile(claimPath(dir, id))
	if err != nil {
		return false
	}
	pidText, ns, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return false
	}
	if ns != pidNamespace() {
		return true
	}
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// orphaned reports whether handle id's container, claimed by cl, has
// neither a live claim nor a record. The claim is looked at first: a
// spawn saves its record before it releases its claim, so one that does
// both between the two looks is seen by the second (the other order
// removed the container of a handle saved just then).
func orphaned(dir, id, cl string) bool {
	if claimed(dir, cl) {
		return false
	}
	betweenLooks()
	_, err := os.Stat(filepath.Join(dir, id+".json"))
	return err != nil
}

// betweenLooks lets a test do what a concurrent spawn does between
// orphaned's two looks.
var betweenLooks = func() {}

// sweep removes this state directory's orphans from c's daemon. It is
// best effort: a daemon that does not answer fails the command that
// needs it, not the sweep.
func sweep(ctx context.Context, c *docker.Context, dir string, stderr io.Writer) {
	tag, err := stateTag(dir, false)
	if err != nil {
		return // no tag: no container can be this directory's
	}
	list, err := c.Containers(ctx, map[string]string{labelState: tag})
	if err != nil {
		return
	}
	for _, ct := range list {
		id, cl := ct.Labels[docker.LabelID], ct.Labels[labelClaim]
		if !idPattern.MatchString(id) || !idPattern.MatchString(cl) {
			continue // not ours to judge
		}
		if !orphaned(dir, id, cl) {
			continue
		}
		if err := c.Remove(ctx, ct.ID); err != nil {
			fmt.Fprintf(stderr, "zctx: warning: cannot remove the orphaned container of handle %s: %v\n", id, err)
			continue
		}
		os.Remove(claimPath(dir, cl))
		fmt.Fprintf(stderr, "zctx: removed the container of handle %s, left by a zctx that was killed before it saved the handle\n", id)
	}
}

// newTag makes the tag file p, whole or not at all (a link fails if p
// exists: two zctx starting at once keep the first one's).
func newTag(p string) error {
	id, err := contexts.NewID("s")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(id + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Link(f.Name(), p)
}
