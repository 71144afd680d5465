package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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

type claim struct{ dir, id string }

func (c *claim) path() string { return claimPath(c.dir, c.id) }

func claimPath(dir, id string) string { return filepath.Join(dir, ".claim-"+id) }

// newClaim writes this process's claim.
func newClaim(dir string) (*claim, error) {
	id, err := contexts.NewID("c")
	if err != nil {
		return nil, err
	}
	c := &claim{dir: dir, id: id}
	f, err := os.OpenFile(c.path(), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "claim: %v", err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%d\n", os.Getpid()); err != nil {
		return nil, contexts.Errorf(contexts.ErrUnavailable, "claim: %v", err)
	}
	return c, nil
}

func (c *claim) release() { os.Remove(c.path()) }

func (c *claim) labels() map[string]string {
	return map[string]string{labelState: stateTag(c.dir), labelClaim: c.id}
}

// stateTag names a state directory in a label without spelling its path.
func stateTag(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:8])
}

// claimed reports whether claim id is held by a zctx that still runs. A
// pid that was reused keeps the container: wrongly kept beats wrongly
// removed.
func claimed(dir, id string) bool {
	b, err := os.ReadFile(claimPath(dir, id))
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return false
	}
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// sweep removes this state directory's orphans from c's daemon. It is
// best effort: a daemon that does not answer fails the command that
// needs it, not the sweep.
func sweep(ctx context.Context, c *docker.Context, dir string, stderr io.Writer) {
	list, err := c.Containers(ctx, map[string]string{labelState: stateTag(dir)})
	if err != nil {
		return
	}
	for _, ct := range list {
		id, cl := ct.Labels[docker.LabelID], ct.Labels[labelClaim]
		if !idPattern.MatchString(id) || !idPattern.MatchString(cl) {
			continue // not ours to judge
		}
		if _, err := os.Stat(filepath.Join(dir, id+".json")); err == nil || claimed(dir, cl) {
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
