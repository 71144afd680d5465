//go:build linux

package probe

// The probes of seccomp/'s real filter tests: each named probe tries one
// system call the filter must refuse (or allow) and returns its error;
// Syscall prints the outcome for the parent to check.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Environment of a Syscall child.
const (
	FilteredEnv = "ZSANDBOX_SECCOMP_FILTERED" // "1": install the program on fd 3 first
	I386ELFEnv  = "ZSANDBOX_SECCOMP_I386_ELF" // path of the i386 binary (I386Exit42)
)

// Syscall runs the probe name, under the filter on fd 3 when FilteredEnv
// is "1", prints its outcome and returns the exit status for the child.
func Syscall(name string) int {
	if os.Getenv(FilteredEnv) == "1" {
		if err := installFromFD(3); err != nil {
			fmt.Fprintf(os.Stderr, "install filter: %v\n", err)
			return 2
		}
	}
	return printSyscall(name)
}

// printSyscall runs the probe name and prints its outcome.
func printSyscall(name string) int {
	probe, ok := syscallProbes[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown probe %q\n", name)
		return 2
	}
	fmt.Println(Outcome(probe()))
	return 0
}

// installFromFD installs the program bwrap would read from fd.
func installFromFD(fd int) error {
	bpf, err := io.ReadAll(os.NewFile(uintptr(fd), "seccomp-bpf"))
	if err != nil {
		return err
	}
	insns := make([]unix.SockFilter, len(bpf)/bpfInsnSize)
	for i := range insns {
		b := bpf[i*bpfInsnSize:]
		insns[i] = unix.SockFilter{Code: binary.NativeEndian.Uint16(b), Jt: b[2], Jf: b[3], K: binary.NativeEndian.Uint32(b[4:])}
	}
	// no_new_privs and the filter are per thread: set both on this one and
	// let TSYNC give the filter (and no_new_privs) to every other thread.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	prog := unix.SockFprog{Len: uint16(len(insns)), Filter: &insns[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(insns)
	switch {
	case errno != 0:
		return fmt.Errorf("seccomp: %w", errno)
	case r != 0:
		return fmt.Errorf("seccomp: thread %d could not take the filter", r)
	}
	return nil
}

// setupError marks a probe that failed before its attack, so it is not
// mistaken for a refusal.
type setupError struct{ err error }

func (e setupError) Error() string { return "setup: " + e.err.Error() }

// ExitOutcome describes how a process ended: "exit N" or "killed by SIGNAL".
func ExitOutcome(ps *os.ProcessState) string {
	ws := ps.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return "killed by " + unix.SignalName(ws.Signal())
	}
	return fmt.Sprintf("exit %d", ws.ExitStatus())
}

// Numbers the probes use. Values above 32 bits are kept in variables so the
// file also compiles where uintptr is 32 bits.
var (
	highBits    uint64 = 1 << 32
	missingPath        = "/proc/self/zsandbox-no-such-dir"
)

const (
	ioctlTIOCSTI     = 0x5412
	ioctlTIOCLINUX   = 0x541c
	uffdUserModeOnly = 1
	bpfProgLoad      = 5
	perPersonaBSD    = 6
	x32SyscallBit    = 0x40000000
	getpidAMD64      = 39
)

var syscallProbes = map[string]func() error{
	"tiocsti":           func() error { return withPTY(func(tty int) error { return injectChar(tty, ioctlTIOCSTI) }) },
	"tiocsti-high-bits": func() error { return withPTY(func(tty int) error { return injectChar(tty, highBits|ioctlTIOCSTI) }) },
	"tioclinux": func() error {
		return withPTY(func(tty int) error {
			sub := byte(6) // TIOCL_GETSHIFTSTATE
			return ioctlPtr(tty, ioctlTIOCLINUX, unsafe.Pointer(&sub))
		})
	},
	"tiocgwinsz": func() error {
		return withPTY(func(tty int) error { _, err := unix.IoctlGetWinsize(tty, unix.TIOCGWINSZ); return err })
	},
	"unshare-user":  func() error { return unshare(unix.CLONE_NEWUSER) },
	"unshare-net":   func() error { return unshare(unix.CLONE_NEWNET) },
	"unshare-files": func() error { return unshare(unix.CLONE_FILES) },
	"clone-user":    func() error { return startTrue(unix.CLONE_NEWUSER) },
	"clone-pid":     func() error { return startTrue(unix.CLONE_NEWPID) },
	"fork-exec":     func() error { return startTrue(0) },
	"clone3":        func() error { return rawSyscall(unix.SYS_CLONE3, 0, 0) }, // NULL args: EINVAL, never a child
	"setns":         func() error { return unix.Setns(-1, 0) },
	"mount":         func() error { return unix.Mount("none", missingPath, "tmpfs", 0, "") },
	"umount2":       func() error { return unix.Unmount(missingPath, 0) },
	"open_tree":     func() error { return closeFD(unix.OpenTree(unix.AT_FDCWD, "/", unix.OPEN_TREE_CLOEXEC)) },
	"fsopen":        func() error { return closeFD(unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)) },
	"bpf": func() error {
		var attr [64]byte // no instructions: E2BIG from the kernel
		return rawSyscall(unix.SYS_BPF, bpfProgLoad, uintptr(unsafe.Pointer(&attr)), uintptr(len(attr)))
	},
	"perf_event_open": perfEventOpen,
	"keyctl-join-session": func() error {
		return rawSyscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0) // a new anonymous session keyring
	},
	"add_key": func() error {
		_, err := unix.AddKey("user", "zsandbox-probe", []byte("x"), unix.KEY_SPEC_PROCESS_KEYRING)
		return err
	},
	"io_uring_setup": func() error {
		var params [120]byte // struct io_uring_params
		return rawSyscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params)))
	},
	"userfaultfd":           func() error { return rawSyscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC|uffdUserModeOnly) },
	"personality-bsd":       func() error { return personality(perPersonaBSD) },
	"personality-high-bits": func() error { return personality(highBits | perPersonaBSD) },
	"personality-query":     func() error { return personality(0xffffffff) },
	"personality-linux":     func() error { return personality(0) },
	"socket-vsock":          func() error { return socket(unix.AF_VSOCK, unix.SOCK_STREAM) },
	"socket-inet":           func() error { return socket(unix.AF_INET, unix.SOCK_STREAM) },
	"socket-unix":           func() error { return socket(unix.AF_UNIX, unix.SOCK_STREAM) },
	"socketpair-stream":     func() error { return socketpair(unix.AF_UNIX, unix.SOCK_STREAM) },
	"socketpair-seqpacket":  func() error { return socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET) },
	"socketpair-dgram-cloexec": func() error {
		return socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC)
	},
	"socketpair-raw":  func() error { return socketpair(unix.AF_UNIX, unix.SOCK_RAW) },
	"socketpair-inet": func() error { return socketpair(unix.AF_INET, unix.SOCK_STREAM) },
	"x32-getpid":      func() error { return rawSyscall(x32SyscallBit | getpidAMD64) },
	"i386-exit":       func() error { return exec.Command(os.Getenv(I386ELFEnv)).Run() },
	"threads":         threads,
}

// withPTY runs fn on the terminal side of a new pty, made the controlling
// terminal of this session (TIOCSTI needs that, or CAP_SYS_ADMIN).
func withPTY(fn func(tty int) error) error {
	// Closing the master of our controlling terminal hangs it up; the probe
	// must live to print its outcome.
	signal.Ignore(syscall.SIGHUP)
	// Only a session leader can take a controlling terminal: a probe that
	// is not one yet (a command under the Landlock-only backend, or run on
	// the host as the control) starts its own session; one that leads its
	// session already (under bwrap --new-session) fails here harmlessly.
	unix.Setsid()
	ptm, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return setupError{fmt.Errorf("open /dev/ptmx: %w", err)}
	}
	defer unix.Close(ptm)
	if err := unix.IoctlSetPointerInt(ptm, unix.TIOCSPTLCK, 0); err != nil {
		return setupError{fmt.Errorf("unlockpt: %w", err)}
	}
	r, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(ptm), unix.TIOCGPTPEER, unix.O_RDWR|unix.O_CLOEXEC)
	if errno != 0 {
		return setupError{fmt.Errorf("TIOCGPTPEER: %w", errno)}
	}
	tty := int(r)
	defer unix.Close(tty)
	if err := unix.IoctlSetInt(tty, unix.TIOCSCTTY, 0); err != nil {
		return setupError{fmt.Errorf("TIOCSCTTY: %w", err)}
	}
	return fn(tty)
}

func injectChar(tty int, req uint64) error {
	c := byte('x')
	return ioctlPtr(tty, req, unsafe.Pointer(&c))
}

func ioctlPtr(fd int, req uint64, p unsafe.Pointer) error {
	return rawSyscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(p))
}

func rawSyscall(trap uintptr, args ...uintptr) error {
	var a [6]uintptr
	copy(a[:], args)
	if _, _, errno := unix.Syscall6(trap, a[0], a[1], a[2], a[3], a[4], a[5]); errno != 0 {
		return errno
	}
	return nil
}

func unshare(flags int) error {
	runtime.LockOSThread() // the probe exits next; the thread is never reused
	return unix.Unshare(flags)
}

// startTrue runs /bin/true in a child made by clone with these flags.
func startTrue(cloneflags uintptr) error {
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: cloneflags}
	return cmd.Run()
}

func closeFD(fd int, err error) error {
	if err == nil {
		unix.Close(fd)
	}
	return err
}

func perfEventOpen() error {
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_SOFTWARE,
		Config: unix.PERF_COUNT_SW_TASK_CLOCK,
		Bits:   unix.PerfBitDisabled | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv,
	}
	attr.Size = uint32(unsafe.Sizeof(attr))
	return closeFD(unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC))
}

func personality(persona uint64) error {
	return rawSyscall(unix.SYS_PERSONALITY, uintptr(persona))
}

func socket(domain, typ int) error {
	return closeFD(unix.Socket(domain, typ|unix.SOCK_CLOEXEC, 0))
}

func socketpair(domain, typ int) error {
	fds, err := unix.Socketpair(domain, typ, 0)
	if err == nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
	}
	return err
}

// threads makes the runtime start new OS threads under the filter (through
// pthread_create in a cgo binary, whose clone3 gets ENOSYS and falls back to
// clone), then forks a shell that forks again.
func threads() error {
	const n = 8
	before, err := threadCount()
	if err != nil {
		return setupError{err}
	}
	var started atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // each goroutine holds a thread of its own
			started.Add(1)
			<-release
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for started.Load() < n && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	during, err := threadCount() // while every goroutine holds its thread
	close(release)
	wg.Wait()
	switch {
	case started.Load() < n:
		return fmt.Errorf("only %d of %d threads started", started.Load(), n)
	case err != nil || during <= before:
		return fmt.Errorf("no thread was started under the filter: %d before, %d after (%v)", before, during, err)
	}
	return exec.Command("/bin/sh", "-c", "true & wait").Run()
}

func threadCount() (int, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, errors.New("no Threads line in /proc/self/status")
}

// I386Exit42 is a minimal static i386 ELF executable that calls exit(42)
// through int 0x80. Under the filter its first syscall, made through the
// i386 ABI, must kill it.
func I386Exit42() []byte {
	const base = 0x08048000
	code := []byte{
		0xb8, 0x01, 0x00, 0x00, 0x00, // mov eax, 1 (exit)
		0xbb, 0x2a, 0x00, 0x00, 0x00, // mov ebx, 42
		0xcd, 0x80, // int 0x80
	}
	const ehsize, phsize = 52, 32
	size := uint32(ehsize + phsize + len(code))
	var b bytes.Buffer
	le := binary.LittleEndian
	b.Write([]byte{0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}) // 32-bit, little endian
	binary.Write(&b, le, struct {
		Type, Machine                uint16
		Version, Entry, Phoff, Shoff uint32
		Flags                        uint32
		Ehsize, Phentsize, Phnum     uint16
		Shentsize, Shnum, Shstrndx   uint16
	}{2, 3, 1, base + ehsize + phsize, ehsize, 0, 0, ehsize, phsize, 1, 0, 0, 0}) // ET_EXEC, EM_386
	binary.Write(&b, le, struct {
		Type, Offset, Vaddr, Paddr, Filesz, Memsz, Flags, Align uint32
	}{1, 0, base, base, size, size, 5, 0x1000}) // PT_LOAD, R+X
	b.Write(code)
	return b.Bytes()
}

// bpfInsnSize is the size of one struct sock_filter.
const bpfInsnSize = 8
