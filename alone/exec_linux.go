//go:build linux

package alone

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/internal/fds"
	"github.com/zsandbox/zsandbox/landlock"
)

// Exec runs argv as the Landlock-only backend under rs, the ruleset
// the parent planned (Rules): it restricts the process and execve's
// the command in place, so the command keeps this process's pid, stdin,
// stdout and stderr. zsandbox runs it in a child of its own (see Child), so
// that it stays the parent: the denial hint, signals forwarded, and no
// process left behind. On success it never returns. It returns an error
// when the command did not run, an *exit.Error: 127 with "the command
// did not run" (and the hint of a *landlock.PlannedError when the kernel
// offers less than rs was planned for) when the sandbox could not be
// built, or exit.Command's 127 (not found) or 126 (not executable) after
// it was built.
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
// when Exec fails, it exits with whatever restrictions it gained and
// the caller's thread is untouched.
func Exec(rs landlock.Ruleset, bpf []byte, argv, env []string, dir string) error {
	return exit.NotRunErr(execPlanned(rs, bpf, argv, env, dir))
}

func execPlanned(rs landlock.Ruleset, bpf []byte, argv, env []string, dir string) error {
	if len(argv) == 0 {
		return errNoCommand
	}
	if rs.Status != landlock.StatusEnforced {
		return errors.New("--backend landlock: no ruleset to enforce")
	}
	if abi := landlock.ABI(); abi < rs.ABI {
		return &landlock.PlannedError{Planned: rs.ABI, ABI: abi}
	}
	prog, err := filterProgram(bpf)
	if err != nil {
		return err
	}
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with this goroutine
		done <- execChild(rs, prog, argv, env, dir)
	}()
	return <-done
}

// RulesHost is Rules over this host's file system.
func RulesHost(c Config, abi int) (landlock.Ruleset, error) {
	return Rules(c, abi, Kind, List)
}

// BPFFD is the descriptor on which Child reads the seccomp program.
const BPFFD = 3

// Child is the confined child of --backend landlock: args are the
// working directory, the planned ruleset (Ruleset.Args), "--" and the
// command; the seccomp program is on BPFFD. It applies exactly that
// (Exec) and execs the command. It returns only when the command cannot
// run, with the error main prints (exit.Exit): 127, or 126 for a command
// found but not executable.
func Child(args []string) error {
	if len(args) == 0 {
		return exit.NotRun("--backend landlock: no working directory")
	}
	rs, argv, err := landlock.ParseArgs(args[1:])
	if err != nil {
		return exit.NotRunErr(err)
	}
	f := os.NewFile(BPFFD, "seccomp")
	bpf, err := io.ReadAll(f)
	if err != nil {
		return exit.NotRun("--backend landlock: reading the seccomp filter: " + err.Error())
	}
	f.Close()
	return Exec(rs, bpf, argv, os.Environ(), args[0])
}

// execChild builds the sandbox on the calling thread, in an order where
// each step still has what it needs, and execve's the command.
func execChild(rs landlock.Ruleset, prog []unix.SockFilter, argv, env []string, dir string) error {
	// The rules are added while zsandbox still has its privileges, so every
	// path they name can be opened.
	fd, err := landlock.RulesetFD(rs)
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
	if err := landlock.RestrictSelf(fd, false); err != nil {
		return fmt.Errorf("--backend landlock: %w", err)
	}
	// The filter comes last: it may refuse calls the steps above make.
	if err := loadFilter(prog); err != nil {
		return fmt.Errorf("--backend landlock: seccomp filter: %w", err)
	}
	if err := fds.CloseInherited(); err != nil {
		return fmt.Errorf("--backend landlock: closing inherited descriptors: %w", err)
	}
	return landlock.Execvp(argv, env)
}
