//go:build linux

package landlock

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// ExecAlone runs argv as the Landlock-only backend under rs, the ruleset
// the parent planned (AloneRules): it restricts the process and execve's
// the command in place, so the command keeps this process's pid, stdin,
// stdout and stderr. zsandbox runs it in a child of its own (see Alone), so
// that it stays the parent: the denial hint, signals forwarded, and no
// process left behind. On success it never returns. It returns an error
// when the command did not run: a *PlannedError when the kernel offers
// less than rs was planned for, a *CommandError (not found: 127, not
// executable: 126, after the sandbox was built), or any other error (the
// sandbox could not be built). Every error but *CommandError means exit
// 127.
//
// bpf is the compiled seccomp filter, the same program bubblewrap would
// install; without one nothing runs. argv[0] is looked up on env's PATH
// after the restrictions are in place, as execvp(3) does; dir becomes the
// working directory ("" keeps the current one).
//
// Everything that restricts is done on one OS thread, and the execve is
// made from that thread: capabilities, the capability bounding set,
// no_new_privs, the Landlock domain and the seccomp filter are all
// per-thread, execve keeps only the calling thread, and the new program
// starts with that thread's credentials, domain and filter. The filter is
// therefore loaded without SECCOMP_FILTER_FLAG_TSYNC: Landlock has no
// equivalent before ABI 8, and a cgo binary (zsandbox links libseccomp)
// cannot run a system call on every thread, so the one-thread design is
// needed anyway, and filtering the process's other threads, which die at
// execve, would add nothing. The thread is a fresh one, locked for good:
// when ExecAlone fails, it exits with whatever restrictions it gained and
// the caller's thread is untouched.
func ExecAlone(rs Ruleset, bpf []byte, argv, env []string, dir string) error {
	if len(argv) == 0 {
		return errNoCommand
	}
	if rs.Status != StatusEnforced {
		return errors.New("--backend landlock: no ruleset to enforce")
	}
	if abi := ABI(); abi < rs.ABI {
		return &PlannedError{Planned: rs.ABI, ABI: abi}
	}
	prog, err := filterProgram(bpf)
	if err != nil {
		return err
	}
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		done <- execAlone(rs, prog, argv, env, dir)
	}()
	return <-done
}

// AloneRulesHost is AloneRules over this host's file system.
func AloneRulesHost(c AloneConfig, abi int) (Ruleset, error) {
	return AloneRules(c, abi, lstatKind, readDirNames)
}

// AloneBPFFD is the descriptor on which Alone reads the seccomp program.
const AloneBPFFD = 3

// Alone is the confined child of --backend landlock: args are the
// working directory, the planned ruleset (Ruleset.Args), "--" and the
// command; the seccomp program is on AloneBPFFD. It applies exactly that
// (ExecAlone) and execs the command; it never returns. When the command
// cannot run it prints zsandbox's error lines and exits 127 (126 for a
// command found but not executable).
func Alone(args []string) {
	if len(args) == 0 {
		die(127, "--backend landlock: no working directory; the command did not run", "")
	}
	rs, argv, err := ParseArgs(args[1:])
	if err != nil {
		die(127, err.Error()+"; the command did not run", "")
	}
	f := os.NewFile(AloneBPFFD, "seccomp")
	bpf, err := io.ReadAll(f)
	if err != nil {
		die(127, "--backend landlock: reading the seccomp filter: "+err.Error()+"; the command did not run", "")
	}
	f.Close()
	err = ExecAlone(rs, bpf, argv, os.Environ(), args[0])
	var ce *CommandError
	if errors.As(err, &ce) {
		die(ce.Code, ce.Msg, "")
	}
	hint := ""
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		hint = h.Hint()
	}
	die(127, err.Error()+"; the command did not run", hint)
}

// execAlone builds the sandbox on the calling thread, in an order where
// each step still has what it needs, and execve's the command.
func execAlone(rs Ruleset, prog []unix.SockFilter, argv, env []string, dir string) error {
	// The rules are added while zsandbox still has its privileges, so every
	// path they name can be opened.
	fd, err := rulesetFD(rs)
	if err != nil {
		return fmt.Errorf("--backend landlock: %w", err)
	}
	defer unix.Close(fd) // close-on-exec too
	if err := dropPrivileges(); err != nil {
		return fmt.Errorf("--backend landlock: %w", err)
	}
	// After the drop: the command gets only a directory it could reach.
	if dir != "" {
		if err := unix.Chdir(dir); err != nil {
			return fmt.Errorf("--backend landlock: working directory %q: %w", dir, err)
		}
	}
	if err := restrictSelf(fd, false); err != nil {
		return fmt.Errorf("--backend landlock: %w", err)
	}
	// The filter comes last: it may refuse calls the steps above make.
	if err := loadFilter(prog); err != nil {
		return fmt.Errorf("--backend landlock: seccomp filter: %w", err)
	}
	if err := closeInherited(); err != nil {
		return fmt.Errorf("--backend landlock: closing inherited descriptors: %w", err)
	}
	code, msg := execvp(argv, env)
	return &CommandError{Code: code, Msg: msg}
}

// lstatKind reports what is at a path for ReadRules, without following a
// final symlink.
func lstatKind(path string) (isDir, ok bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return false, false
	}
	mode := st.Mode & unix.S_IFMT
	return mode == unix.S_IFDIR, mode != unix.S_IFLNK
}

// readDirNames lists a directory for ReadRules; a directory that cannot be
// listed yields nothing, so nothing beneath it is granted.
func readDirNames(dir string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	return names
}
