//go:build linux

package landlock

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// ExecAlone runs argv as the Landlock-only backend: it restricts the
// process and execve's the command in place, so the command keeps
// zsandbox's pid, stdin, stdout and stderr. On success it never returns.
// It returns an error when the command did not run: an *AloneError or
// *AloneABIError (refusal), a *CommandError (not found: 127, not
// executable: 126, after the sandbox was built), or any other error (the
// sandbox could not be built). Every error but *CommandError means exit
// 127.
//
// bpf is the compiled seccomp filter, the same program bubblewrap would
// install (seccomp.Compile); without one nothing runs. argv[0] is looked
// up on env's PATH after the restrictions are in place, as execvp(3) does;
// dir becomes the working directory ("" keeps the current one).
//
// Everything that restricts is done on one OS thread, and the execve is
// made from that thread: capabilities, the capability bounding set,
// no_new_privs, the Landlock domain and the seccomp filter are all
// per-thread, execve keeps only the calling thread, and the new program
// starts with that thread's credentials, domain and filter. The filter is
// therefore loaded without SECCOMP_FILTER_FLAG_TSYNC: Landlock has no
// equivalent before ABI 8, and a cgo binary (zsandbox links libseccomp)
// cannot run a system call on every thread, so the one-thread design is
// needed anyway, and filtering zsandbox's other threads, which die at
// execve, would add nothing. The thread is a fresh one, locked for good:
// when ExecAlone fails, it exits with whatever restrictions it gained and
// the caller's thread is untouched.
func ExecAlone(c AloneConfig, bpf []byte, argv, env []string, dir string) error {
	if len(argv) == 0 {
		return errNoCommand
	}
	prog, err := filterProgram(bpf)
	if err != nil {
		return err
	}
	rs, err := AloneRules(c, ABI(), lstatKind, readDirNames)
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
