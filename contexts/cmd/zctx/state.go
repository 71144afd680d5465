package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/zsandbox/zsandbox/contexts"
)

// record is what zctx keeps about a handle between its runs: the handle's
// State and the Options of its context. It is the zctx user's own data, in
// a directory only that user can open, and that directory is hidden from
// every process-context command, so a sandboxed command can neither read
// it nor rewrite it to widen the next command's sandbox.
type record struct {
	Options   contexts.Options `json:"options"`
	State     contexts.State   `json:"state"`
	Destroyed bool             `json:"destroyed,omitempty"`
}

// stateDir is $ZCTX_STATE_DIR, else $XDG_STATE_HOME/zctx, else
// ~/.local/state/zctx.
func stateDir() (string, error) {
	if d := os.Getenv("ZCTX_STATE_DIR"); d != "" {
		return filepath.Abs(d)
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "zctx"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", contexts.Errorf(contexts.ErrUnavailable, "state directory: %v", err).WithHint("set HOME or ZCTX_STATE_DIR")
	}
	return filepath.Join(home, ".local", "state", "zctx"), nil
}

// openStateDir makes the directory (0700) and refuses one that another
// user could write or that is not ours.
func openStateDir() (string, error) {
	dir, err := stateDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", contexts.Errorf(contexts.ErrUnavailable, "state directory %q: %v", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", contexts.Errorf(contexts.ErrUnavailable, "state directory %q: %v", dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ok || int(st.Uid) != os.Getuid() {
		return "", contexts.Errorf(contexts.ErrUnavailable, "state directory %q must be a directory of yours with mode 0700 (it is %v)", dir, fi.Mode()).
			WithHint("chmod 700 " + dir)
	}
	return dir, nil
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)

// handleID takes a handle as given on the command line: its id, or the
// JSON that spawn printed.
func handleID(arg string) (string, error) {
	id := arg
	if strings.HasPrefix(strings.TrimSpace(arg), "{") {
		var h struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(arg), &h); err != nil {
			return "", usagef("handle JSON: %v", err)
		}
		id = h.ID
	}
	if !idPattern.MatchString(id) {
		return "", usagef("handle %q: not a handle id", arg)
	}
	return id, nil
}

func save(dir string, rec record) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-")
	if err != nil {
		return contexts.Errorf(contexts.ErrUnavailable, "save handle: %v", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return contexts.Errorf(contexts.ErrUnavailable, "save handle: %v", err)
	}
	tmp.Close()
	return os.Rename(tmp.Name(), filepath.Join(dir, rec.State.ID+".json"))
}

func load(dir, id string) (record, error) {
	var rec record
	b, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		return rec, contexts.Errorf(contexts.ErrNotFound, "no handle %q", id).WithHint("zctx ls lists the handles; zctx spawn makes one")
	}
	if err != nil {
		return rec, contexts.Errorf(contexts.ErrUnavailable, "handle %q: %v", id, err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, contexts.Errorf(contexts.ErrUnavailable, "handle %q: %v", id, err)
	}
	if rec.Destroyed {
		return rec, contexts.Errorf(contexts.ErrDestroyed, "handle %q was destroyed", id)
	}
	return rec, nil
}

func loadAll(dir string) ([]record, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []record
	for _, n := range names {
		rec, err := load(dir, strings.TrimSuffix(filepath.Base(n), ".json"))
		if err == nil {
			out = append(out, rec)
		}
	}
	return out, nil
}

func describe(rec record) string {
	return fmt.Sprintf("%s\t%s\t%s", rec.State.ID, rec.State.Kind, rec.State.Cwd)
}
