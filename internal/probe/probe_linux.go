//go:build linux

// Package probe is the one probe program of the real sandbox tests: a
// test binary turns into it in a child that is restricted (or not, for the
// control run), tries what the sandbox must stop, and prints the outcome
// for the parent, which judges the effect from outside. landlock/ and
// alone/ try probes named "op:arg[:arg]" and read "probe -> outcome" lines
// with Parse; seccomp/ runs one named system call under a filter
// (Syscall); e2e/ runs Attack inside the real zsandbox (a socket to reach,
// a file to write, a process to kill or trace, a named system call, io_uring
// and ptrace ways round the filter, a rename race). Each probe is one raw
// system call or a few, so nothing hops to another thread. Only tests
// import it.
package probe

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Print tries each probe and prints "probe -> outcome".
func Print(probes []string) {
	for _, p := range probes {
		fmt.Printf("%s -> %s\n", p, Try(p))
	}
}

// Parse reads "probe -> outcome" lines.
func Parse(out string) map[string]string {
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if k, v, ok := strings.Cut(line, " -> "); ok {
			got[k] = v
		}
	}
	return got
}

// Try runs one probe and describes the outcome: "ok", an errno name, or
// for status the field's value.
func Try(p string) string {
	op, arg, _ := strings.Cut(p, ":")
	a, b, _ := strings.Cut(arg, ":")
	if op == "status" {
		return statusField(a)
	}
	return Outcome(try(op, a, b))
}

// Outcome is what a probe prints: "ok", an errno's name ("EPERM"), for a
// command it ran "exit N" or "killed by SIGNAL", "setup: …" for a probe
// that failed before its attack, or the error's text.
func Outcome(err error) string {
	var setup setupError
	var exit *exec.ExitError
	var errno unix.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &setup):
		return setup.Error()
	case errors.As(err, &exit):
		return ExitOutcome(exit.ProcessState)
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	}
	return err.Error()
}

func try(op, a, b string) error {
	switch op {
	case "create":
		return create(a)
	case "write":
		return openClose(a, unix.O_WRONLY|unix.O_TRUNC)
	case "read":
		return openClose(a, unix.O_RDONLY)
	case "list":
		return openClose(a, unix.O_RDONLY|unix.O_DIRECTORY)
	case "truncate":
		return unix.Truncate(a, 0)
	case "mkdir":
		return unix.Mkdir(a, 0o755)
	case "mknod":
		return unix.Mknod(a, unix.S_IFIFO|0o644, 0)
	case "rename":
		return unix.Rename(a, b)
	case "link":
		return unix.Link(a, b)
	case "symlink":
		return unix.Symlink(a, b)
	case "connect-tcp", "bind-tcp":
		return tcp(op, a)
	case "connect-abstract":
		return connectUnix("@" + a)
	case "kill":
		return kill(a, b)
	case "pty":
		return openPty()
	case "other-thread-create":
		return onOtherThread(func() error { return create(a) })
	}
	return tryIPC(op, a, b)
}

// tryIPC are the probes of what the Landlock-only backend leaves to
// Landlock and seccomp without namespaces.
func tryIPC(op, a, b string) error {
	switch op {
	case "udp":
		return sendUDP(a)
	case "connect-unix":
		return connectUnix(a)
	case "ptrace":
		return ptraceAttach(a)
	case "readlink":
		_, err := os.Readlink(a)
		return unwrapErrno(err)
	case "tiocsti":
		if a == "high" {
			return syscallProbes["tiocsti-high-bits"]()
		}
		return syscallProbes["tiocsti"]()
	case "io_uring":
		return syscallProbes["io_uring_setup"]()
	case "chmod":
		mode, _ := strconv.ParseUint(b, 8, 32)
		return unix.Chmod(a, uint32(mode))
	case "utime":
		return unix.UtimesNano(a, []unix.Timespec{{Sec: 1}, {Sec: 1}})
	case "stat":
		var st unix.Stat_t
		return unix.Stat(a, &st)
	case "shm":
		key, _ := strconv.Atoi(a)
		_, err := unix.SysvShmGet(key, 0, 0)
		return err
	case "mq":
		return mqOpen(a)
	}
	return fmt.Errorf("unknown probe %q", op)
}
func create(path string) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	_, err = unix.Write(fd, []byte("x"))
	return err
}

func openClose(path string, flags int) error {
	fd, err := unix.Open(path, flags|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

func tcp(op, port string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	n, _ := strconv.Atoi(port)
	sa := &unix.SockaddrInet4{Port: n, Addr: [4]byte{127, 0, 0, 1}}
	if op == "bind-tcp" {
		return unix.Bind(fd, sa)
	}
	return unix.Connect(fd, sa)
}

func kill(pid, sig string) error {
	p, _ := strconv.Atoi(pid)
	s, _ := strconv.Atoi(sig)
	return unix.Kill(p, syscall.Signal(s))
}

// openPty opens a pseudo-terminal pair the way a terminal program does and
// asks the slave for its window size, an ioctl Landlock allows only with
// ioctl_dev (ABI 5).
func openPty() error {
	master, slave, err := newPty(unix.O_NOCTTY)
	if err != nil {
		return err
	}
	defer unix.Close(master)
	defer unix.Close(slave)
	_, err = unix.IoctlGetWinsize(slave, unix.TIOCGWINSZ)
	return err
}

// newPty opens a pseudo-terminal pair, the slave with slaveFlags
// (O_NOCTTY, or 0 to let it become the controlling terminal).
func newPty(slaveFlags int) (master, slave int, err error) {
	master, err = unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, -1, err
	}
	err = unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0)
	n := 0
	if err == nil {
		n, err = unix.IoctlGetInt(master, unix.TIOCGPTN)
	}
	if err == nil {
		slave, err = unix.Open("/dev/pts/"+strconv.Itoa(n), unix.O_RDWR|unix.O_CLOEXEC|slaveFlags, 0)
	}
	if err != nil {
		unix.Close(master)
		return -1, -1, err
	}
	return master, slave, nil
}

// onOtherThread runs f on a fresh goroutine locked to a thread other than
// the caller's.
func onOtherThread(f func() error) error {
	self := unix.Gettid()
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == self {
			done <- fmt.Errorf("same thread")
			return
		}
		done <- f()
	}()
	return <-done
}

// statusField reads one field of /proc/self/status.
func statusField(name string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return Outcome(unwrapErrno(err))
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == name {
			return strings.TrimSpace(v)
		}
	}
	return "missing"
}

func unwrapErrno(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	if le, ok := err.(*os.LinkError); ok {
		return le.Err
	}
	return err
}

func sendUDP(port string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	n, _ := strconv.Atoi(port)
	return unix.Sendto(fd, []byte("zsandbox"), 0, &unix.SockaddrInet4{Port: n, Addr: [4]byte{127, 0, 0, 1}})
}

func connectUnix(path string) error {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Connect(fd, &unix.SockaddrUnix{Name: path})
}

func ptraceAttach(pid string) error {
	p, _ := strconv.Atoi(pid)
	if err := unix.PtraceAttach(p); err != nil {
		return err
	}
	var ws unix.WaitStatus
	unix.Wait4(p, &ws, unix.WALL, nil)
	return unix.PtraceDetach(p)
}

// mqOpen opens an existing POSIX message queue (name without the "/").
func mqOpen(name string) error {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return err
	}
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)), unix.O_RDONLY|unix.O_CLOEXEC, 0, 0, 0, 0)
	if errno != 0 {
		return errno
	}
	unix.Close(int(fd))
	return nil
}
