//go:build linux

package landlock

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/internal/fds"
)

// Stage2 is zsandbox's second stage: args are the arguments after
// Stage2Arg, the Ruleset the parent planned (see Ruleset.Args). It
// restricts the process with exactly that (or exits 127 when the kernel it
// sees cannot enforce it), marks every descriptor above stderr
// close-on-exec (the one the binary was executed from included) and
// execve's the command, looked up on the process's PATH like execvp does.
// It returns only when the command cannot run: an *exit.Error, 127
// (sandbox not built, command not found) or 126 (found but not
// executable), which main prints with exit.Exit. On success it prints
// nothing.
//
// It runs before zsandbox parses its command line and does the least it
// can: no flag parsing, no JSON, a few small allocations.
//
// In builds with cgo on glibc (amd64, arm64) this function is not reached:
// stage2_linux.c does the same in C from a constructor, before the Go
// runtime starts, unless built with -tags zsandbox_gostage2. Keep the two in
// step: TestStage2Implementations runs both on the same cases. Messages
// quote with quote, not %q, and spell errnos with errText, so that the C
// needs no Unicode or errno tables. What the command inherits differs only
// in what the Go runtime changed before Stage2 runs (see stage2_linux.c's
// stage2); none of it bears on the sandbox.
func Stage2(args []string) error {
	rs, argv, err := ParseArgs(args)
	if err != nil {
		return exit.NotRunErr(err)
	}
	// Only this thread needs the domain: everything from here to execve runs
	// on it (apply locks it), and execve keeps only this thread. Skipping
	// the all-threads call saves a stop-the-world in a cgo-free build.
	if err := apply(rs, false); err != nil {
		var pe *PlannedError
		if errors.As(err, &pe) {
			return exit.NotRunErr(pe)
		}
		return exit.NotRun("landlock: " + errMessage(err))
	}
	if err := fds.CloseInherited(); err != nil {
		return exit.NotRun("closing inherited descriptors: " + errMessage(err))
	}
	return Execvp(argv, os.Environ())
}

// stage2Errnos are the errnos stage 2 spells by Go's text; any other is
// "errno N", so that the C stage 2 needs no table of every errno's text
// (it gets these from the generated stage2_consts_linux.h). Go's texts and
// these numbers are the same on amd64 and arm64.
var stage2Errnos = []syscall.Errno{unix.EPERM, unix.ENOENT, unix.E2BIG, unix.ENOEXEC, unix.ENOMEM, unix.EACCES,
	unix.ETXTBSY, unix.ENOTDIR, unix.EISDIR, unix.ENAMETOOLONG, unix.ENOSYS, unix.ELOOP}

// errText is an errno's text in stage 2's messages.
func errText(e syscall.Errno) string {
	if slices.Contains(stage2Errnos, e) {
		return e.Error()
	}
	return "errno " + strconv.Itoa(int(e))
}

// errMessage is err.Error() with the errno that ends it (every error
// enforce and fds.CloseInherited return wraps one last, if any) spelled by
// errText.
func errMessage(err error) string {
	var e syscall.Errno
	if msg := err.Error(); errors.As(err, &e) && strings.HasSuffix(msg, e.Error()) {
		return strings.TrimSuffix(msg, e.Error()) + errText(e)
	}
	return err.Error()
}

// defaultPath is execvp's search path when PATH is unset (glibc).
const defaultPath = "/bin:/usr/bin"

// Execvp runs argv[0] the way execvp(3) finds it: a name with a slash as
// is, any other on each entry of env's PATH in turn, and a file the kernel
// cannot execute (ENOEXEC, a script without #!) through /bin/sh. It
// returns only on failure, an exit.Command error: 127 when nothing was
// found, 126 when something was found but could not be executed.
func Execvp(argv, env []string) error {
	return exit.Command(execvp(argv, env))
}

func execvp(argv, env []string) (int, string) {
	name := argv[0]
	switch {
	case name == "":
		return 127, `"": command not found`
	case strings.IndexByte(name, '/') >= 0:
		err := execFile(name, argv, env)
		if err == unix.ENOENT || err == unix.ENOTDIR {
			return 127, name + ": " + errText(err)
		}
		return 126, name + ": cannot execute: " + errText(err)
	}
	path, ok := lookupEnv(env, "PATH")
	if !ok {
		path = defaultPath
	}
	return searchPath(path, argv, env)
}

// lookupEnv finds key in env as getenv(3) does: the first entry wins.
func lookupEnv(env []string, key string) (string, bool) {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// searchPath tries name in each directory of path (an empty entry is the
// current directory). Like execvp, it skips entries where the name is
// missing, remembers one where it is not executable, and stops at any
// other error.
func searchPath(path string, argv, env []string) (int, string) {
	name, denied := argv[0], false
	for more := true; more; {
		var dir string
		dir, path, more = strings.Cut(path, ":")
		if dir == "" {
			dir = "."
		}
		file := dir + "/" + name
		switch err := execFile(file, argv, env); err {
		case unix.EACCES:
			// A PATH directory the user cannot search (another user's
			// ~/bin) hides nothing from us: only a file that is there
			// but not executable makes this a 126, as in bash.
			var st unix.Stat_t
			denied = denied || unix.Stat(file, &st) == nil
		case unix.ENOENT, unix.ENOTDIR, unix.ESTALE, unix.ENODEV, unix.ETIMEDOUT:
		default:
			return 126, file + ": cannot execute: " + errText(err)
		}
	}
	if denied {
		return 126, name + ": cannot execute: permission denied"
	}
	return 127, name + ": command not found"
}

// execFile execve's file, and runs it with /bin/sh when the kernel does not
// know its format. It returns only on failure.
func execFile(file string, argv, env []string) syscall.Errno {
	err := syscall.Exec(file, argv, env)
	if err == unix.ENOEXEC {
		sh := append([]string{"/bin/sh", file}, argv[1:]...)
		syscall.Exec("/bin/sh", sh, env) // on failure, report ENOEXEC
	}
	errno, ok := err.(syscall.Errno)
	if !ok {
		return unix.EINVAL
	}
	return errno
}
