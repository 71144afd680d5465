// Package shell holds the small POSIX sh programs the container contexts
// run inside a container (docker, apple) where their APIs have no call
// for it: killing an exec's process tree, listing a directory, writing a
// file from stdin. Every variable part is a positional argument, never
// shell text, and each works with busybox, dash and bash.
package shell

import (
	"bytes"
	"context"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/zsandbox/zsandbox/contexts"
)

// Mark is the variable every exec carries, with a fresh value: neither
// the Engine API nor Apple's CLI can kill an exec, so a second exec finds
// the processes by it (the environment survives execve and is inherited)
// and signals their process groups (an exec is a session leader).
const Mark = "ZCTX_EXEC"

// Kill signals every process carrying ZCTX_EXEC=$2, and its group, with
// signal number $1.
const Kill = `for e in /proc/[0-9]*/environ; do
  if tr '\0' '\n' < "$e" 2>/dev/null | grep -qxF "` + Mark + `=$2"; then
    p=${e#/proc/}; p=${p%/environ}
    kill -s "$1" -- "-$p" "$p" 2>/dev/null
  fi
done; exit 0`

// KillArgs is the argv that sends signal sig to the exec marked mark.
func KillArgs(sig int, mark string) []string {
	return []string{"/bin/sh", "-c", Kill, "zctx-kill", strconv.Itoa(sig), mark}
}

// Exec wraps argv so that a missing command is sh's 127 with its message
// (runc alone reports 126 and nothing else); exec keeps the pid.
func Exec(argv []string) []string {
	return append([]string{"/bin/sh", "-c", `exec "$@"`, "zctx"}, argv...)
}

// list prints "type NUL size NUL name NUL" for every entry of $1; exit 2
// when $1 is not a directory. Only a regular file is opened for its size:
// opening a FIFO a command made would block the listing for good.
const list = `cd -- "$1" 2>/dev/null || { echo "no such directory: $1" >&2; exit 2; }
for f in * .[!.]* ..?*; do
  [ -e "$f" ] || [ -L "$f" ] || continue
  t=f; s=0
  if [ -d "$f" ]; then t=d; elif [ -f "$f" ]; then s=$(wc -c < "$f" 2>/dev/null || echo 0); fi
  printf '%s\0%s\0%s\0' "$t" "$s" "$f"
done`

// ListArgs is the argv that lists dir.
func ListArgs(dir string) []string { return []string{"/bin/sh", "-c", list, "zctx-ls", dir} }

// ParseList reads the output of ListArgs.
func ParseList(out []byte) []contexts.FileInfo {
	fields := strings.Split(string(out), "\x00")
	var infos []contexts.FileInfo
	for i := 0; i+2 < len(fields); i += 3 {
		size, _ := strconv.ParseInt(strings.TrimSpace(fields[i+1]), 10, 64)
		fi := contexts.FileInfo{Name: fields[i+2], Size: size, IsDir: fields[i] == "d", Mode: 0o644}
		if fi.IsDir {
			fi.Mode = fs.ModeDir | 0o755
		}
		infos = append(infos, fi)
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].Name < infos[j].Name })
	return infos
}

// ListResult maps the outcome of the ListArgs exec.
func ListResult(dir string, r contexts.Result) ([]contexts.FileInfo, error) {
	switch r.ExitCode {
	case 0:
		return ParseList(r.Stdout), nil
	case 2:
		return nil, contexts.Errorf(contexts.ErrNotFound, "list %q: %s", dir, strings.TrimSpace(string(r.Stderr)))
	}
	return nil, contexts.Errorf(contexts.ErrUnavailable, "list %q: exit %d: %s", dir, r.ExitCode, r.Stderr)
}

// Execer runs one command in the container as the handle's user.
type Execer func(ctx context.Context, cmd contexts.Cmd) (contexts.Result, error)

// readFile cats $1 after telling a missing path (3) and a non-file (4)
// apart from a refusal.
const readFile = `[ -e "$1" ] || exit 3; [ -f "$1" ] || exit 4; exec cat -- "$1"`

// ReadFile reads abs through an exec, with the run user's rights (as the
// commands have them; a daemon-side copy would read as root).
func ReadFile(ctx context.Context, run Execer, abs, shown string) ([]byte, error) {
	r, err := run(ctx, contexts.Cmd{Args: []string{"/bin/sh", "-c", readFile, "zctx-read", abs}})
	if err != nil {
		return nil, err
	}
	switch r.ExitCode {
	case 0:
		return r.Stdout, nil
	case 3:
		return nil, contexts.Errorf(contexts.ErrNotFound, "read %q: no such file or directory", shown)
	case 4:
		return nil, contexts.Errorf(contexts.ErrUsage, "read %q: not a regular file", shown)
	}
	return nil, contexts.Errorf(contexts.ErrDenied, "read %q: %s", shown, strings.TrimSpace(string(r.Stderr)))
}

// writeFile makes the parents, writes stdin to $1 and sets mode $2.
const writeFile = `mkdir -p -- "$(dirname -- "$1")" && cat > "$1" && chmod "$2" "$1"`

// WriteFile writes data to abs through an exec as the run user: the file
// belongs to that user, and the user's rights (and read-only mounts)
// apply, as they do to commands.
func WriteFile(ctx context.Context, run Execer, abs, shown string, data []byte, perm fs.FileMode) error {
	r, err := run(ctx, contexts.Cmd{Args: []string{"/bin/sh", "-c", writeFile, "zctx-write", abs,
		strconv.FormatUint(uint64(perm.Perm()), 8)}, Stdin: bytes.NewReader(data)})
	if err != nil {
		return err
	}
	if r.ExitCode != 0 {
		return contexts.Errorf(contexts.ErrDenied, "write %q: %s", shown, strings.TrimSpace(string(r.Stderr)))
	}
	return nil
}

// ListFiles lists abs through an exec.
func ListFiles(ctx context.Context, run Execer, abs, shown string) ([]contexts.FileInfo, error) {
	r, err := run(ctx, contexts.Cmd{Args: ListArgs(abs)})
	if err != nil {
		return nil, err
	}
	return ListResult(shown, r)
}
