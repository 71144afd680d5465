//go:build linux

package landlock

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/internal/fds"
)

// ABI returns the kernel's Landlock ABI version, 0 when Landlock is missing
// or disabled (ENOSYS, EOPNOTSUPP) or the call is filtered.
func ABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 || int(v) < 0 {
		return 0
	}
	return int(v)
}

// Enforce restricts the calling process with Rules(c, c.ABI), the fence the
// caller planned, and returns the ABI it used (0 when nothing was enforced:
// mode off, or auto planned without Landlock). It never enforces less than
// planned: with mode require and a planned ABI that cannot hold the whole
// fence it returns a *RequireError, and when the kernel this process sees
// offers less than c.ABI (a seccomp filter refusing the Landlock calls) a
// *PlannedError, restricting nothing either way; the caller must not run
// the command. Any other error also means the command must not run.
//
// Landlock restricts threads, not processes. The calling goroutine is locked
// to its OS thread for good and that thread is always restricted. Every
// other thread is restricted too when Go can run a system call on all
// threads, which it cannot in a cgo binary (zsandbox is one: libseccomp);
// there, work that must be confined has to run on the calling goroutine or
// in a program it execve's, as Stage2 does (execve leaves only the calling
// thread, and the new program inherits its domain).
func Enforce(c Config) (abi int, err error) {
	return enforce(c, true)
}

func enforce(c Config, allThreads bool) (int, error) {
	if _, err := ParseMode(string(c.Mode)); err != nil {
		return 0, err
	}
	if err := Check(c, c.ABI); err != nil {
		return 0, err
	}
	rs := Rules(c, c.ABI)
	if err := apply(rs, allThreads); err != nil || rs.Status != StatusEnforced {
		return 0, err
	}
	return rs.ABI, nil
}

// apply restricts the calling thread (all threads if allThreads and Go
// allows it) with rs exactly: nothing when it is not enforced, and a
// *PlannedError, restricting nothing, when the kernel this process sees
// offers less than the ABI rs was planned for (a seccomp filter refusing
// the Landlock calls). It is all the stage 2 does with the plan.
func apply(rs Ruleset, allThreads bool) error {
	if rs.Status != StatusEnforced {
		return nil
	}
	if abi := ABI(); abi < rs.ABI {
		return &PlannedError{Planned: rs.ABI, ABI: abi}
	}
	fd, err := RulesetFD(rs)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return RestrictSelf(fd, allThreads)
}

// rulesetAttr is struct landlock_ruleset_attr up to the scoped field; the
// kernel accepts a shorter or longer struct as long as the bytes it does not
// know are zero, and Rules only sets what the ABI knows.
type rulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

// netPortAttr is struct landlock_net_port_attr, and ruleNetPort
// LANDLOCK_RULE_NET_PORT (golang.org/x/sys at this version has neither).
type netPortAttr struct {
	allowedAccess uint64
	port          uint64
}

const ruleNetPort = 2

// RulesetFD creates the ruleset and adds the path rules. Network rights are
// handled with no port rule: every TCP (and, from ABI 10, UDP) connect and
// bind is denied.
func RulesetFD(rs Ruleset) (int, error) {
	attr := rulesetAttr{uint64(rs.HandledFS), uint64(rs.HandledNet), uint64(rs.Scoped)}
	r, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET,
		uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	fd := int(r)
	for _, p := range rs.Paths {
		if err := addPathRule(fd, p); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	for _, p := range rs.Ports {
		attr := netPortAttr{uint64(p.Access), uint64(p.Port)}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd),
			ruleNetPort, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
			unix.Close(fd)
			return -1, fmt.Errorf("landlock rule for port %d: %w", p.Port, errno)
		}
	}
	return fd, nil
}

func addPathRule(rulesetFD int, p PathRule) error {
	if len(p.Path) == 0 || p.Path[0] != '/' {
		return fmt.Errorf("landlock rule for %s: not an absolute path", quote(p.Path))
	}
	fd, mode, err := openRulePath(p)
	if err != nil || fd < 0 {
		return err
	}
	defer unix.Close(fd)
	access := p.Access
	if mode != unix.S_IFDIR {
		access &= FileAccess // the kernel refuses directory rights on a file
	}
	if access == 0 || (p.NoFollow && mode == unix.S_IFLNK) {
		return nil // nothing to allow (the kernel refuses an empty rule)
	}
	attr := unix.LandlockPathBeneathAttr{Allowed_access: uint64(access), Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD),
		unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock rule for %s (%s): %w", quote(p.Path), access, errno)
	}
	return nil
}

// openRulePath opens what p names with O_PATH and returns its file type,
// or -1 and no error for an IfExists path that is missing. Without
// NoFollow, O_PATH follows symlinks: the rule lands on what the path names
// now (bwrap's /dev/ptmx is a symlink to pts/ptmx). With it, a symlink is
// opened itself, and addPathRule skips it.
func openRulePath(p PathRule) (fd int, mode uint32, err error) {
	flags := unix.O_PATH | unix.O_CLOEXEC
	if p.NoFollow {
		flags |= unix.O_NOFOLLOW
	}
	if p.Exact {
		fd, err = fds.OpenExact(unix.AT_FDCWD, p.Path, flags, false)
	} else {
		fd, err = unix.Open(p.Path, flags, 0)
	}
	if err != nil {
		if p.IfExists && errors.Is(err, unix.ENOENT) {
			return -1, 0, nil
		}
		return -1, 0, fmt.Errorf("landlock rule for %s: %w", quote(p.Path), err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, 0, fmt.Errorf("landlock rule for %s: %w", quote(p.Path), err)
	}
	return fd, st.Mode & unix.S_IFMT, nil
}

// RestrictSelf sets no_new_privs (landlock_restrict_self requires it of an
// unprivileged thread; it also keeps setuid programs from escaping) and
// enters the domain: on every thread when Go allows it, else on this one.
func RestrictSelf(fd int, allThreads bool) error {
	runtime.LockOSThread() // never unlocked: this thread carries the domain
	if allThreads {
		_, _, errno := syscall.AllThreadsSyscall(unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0)
		if errno == 0 {
			_, _, errno = syscall.AllThreadsSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0)
			return restrictErr(errno)
		}
		if errno != unix.ENOTSUP { // ENOTSUP: a cgo binary
			return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", errno)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	_, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0)
	return restrictErr(errno)
}

func restrictErr(errno syscall.Errno) error {
	switch errno {
	case 0:
		return nil
	case unix.E2BIG:
		return fmt.Errorf("landlock_restrict_self: too many nested Landlock domains: %w", errno)
	}
	return fmt.Errorf("landlock_restrict_self: %w", errno)
}
