package landlock

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// aloneProbeHelper is the command the Landlock-only backend tests run: it
// restricts nothing itself, tries each probe in args and prints
// "probe -> result". Run directly, it is the control that shows a refusal
// is the sandbox's and not the host's.
func aloneProbeHelper(args []string) int {
	// The tiocsti probe makes a pty the controlling terminal; closing it
	// hangs the session up.
	signal.Ignore(syscall.SIGHUP)
	for _, p := range args {
		fmt.Printf("%s -> %s\n", p, tryAlone(p))
	}
	return 0
}

// tryAlone runs one probe, "op:arg[:arg]", and describes the outcome:
// "ok", an errno name, or for status the field's value.
func tryAlone(p string) string {
	op, arg, _ := strings.Cut(p, ":")
	a, b, _ := strings.Cut(arg, ":")
	var err error
	switch op {
	case "status":
		return statusField(a)
	case "udp":
		err = sendUDP(a)
	case "connect-unix":
		err = connectUnix(a)
	case "ptrace":
		err = ptraceAttach(a)
	case "readlink":
		_, err = os.Readlink(a)
		err = unwrapErrno(err)
	case "tiocsti":
		err = tiocsti(a == "high")
	case "io_uring":
		err = ioUringSetup()
	case "chmod":
		mode, _ := strconv.ParseUint(b, 8, 32)
		err = unix.Chmod(a, uint32(mode))
	case "utime":
		err = unix.UtimesNano(a, []unix.Timespec{{Sec: 1}, {Sec: 1}})
	case "stat":
		var st unix.Stat_t
		err = unix.Stat(a, &st)
	case "shm":
		key, _ := strconv.Atoi(a)
		_, err = unix.SysvShmGet(key, 0, 0)
	case "mq":
		err = mqOpen(a)
	default:
		err = try(p)
	}
	return outcome(err)
}

// statusField reads one field of /proc/self/status.
func statusField(name string) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return outcome(unwrapErrno(err))
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

// tiocsti makes a new pty this process's controlling terminal, as the
// caller's terminal is for a sandboxed command, and pushes a byte into its
// input. With high, the request number carries junk above its 32 bits,
// which the kernel ignores and a filter comparing 64 bits would miss.
func tiocsti(high bool) error {
	unix.Setsid() // a session leader can take a controlling terminal
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(master)
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		return err
	}
	n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
	if err != nil {
		return err
	}
	slave, err := unix.Open("/dev/pts/"+strconv.Itoa(n), unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(slave)
	unix.IoctlSetInt(slave, unix.TIOCSCTTY, 0)
	req := uintptr(unix.TIOCSTI)
	if high {
		req |= 0xdead << 32
	}
	c := byte('#')
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(slave), req, uintptr(unsafe.Pointer(&c))); errno != 0 {
		return errno
	}
	return nil
}

func ioUringSetup() error {
	var params [120]byte // struct io_uring_params
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
	if errno != 0 {
		return errno
	}
	unix.Close(int(fd))
	return nil
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

// parseProbes reads "probe -> result" lines.
func parseProbes(out string) map[string]string {
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if k, v, ok := strings.Cut(line, " -> "); ok {
			got[k] = v
		}
	}
	return got
}
