package landlock

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// runHelper is the child side of the real tests.
func runHelper(name string, args []string) int {
	switch name {
	case "probe":
		return probeHelper(args)
	case "readrules":
		return readRulesHelper(args)
	case "alone":
		return aloneProbeHelper(args)
	}
	return fatalf("unknown helper %q", name)
}

// probeHelper applies the Ruleset in args (as the stage 2 reads it) on
// every thread and tries each probe after "--". Every probe runs on this
// goroutine, which apply locked to the restricted thread, with raw system
// calls, so nothing hops to another thread.
func probeHelper(args []string) int {
	rs, probes, err := ParseArgs(args)
	if err != nil {
		return fatalf("%v", err)
	}
	err = apply(rs, true)
	abi := 0
	if err == nil && rs.Status == StatusEnforced {
		abi = rs.ABI
	}
	fmt.Printf("abi -> %d\n", abi)
	if err != nil {
		fmt.Printf("enforce -> %v\n", err)
		return 0
	}
	_, _, e := syscall.AllThreadsSyscall(unix.SYS_GETPID, 0, 0, 0)
	fmt.Printf("all threads -> %v\n", e != unix.ENOTSUP)
	for _, p := range probes {
		fmt.Printf("%s -> %s\n", p, outcome(try(p)))
	}
	return 0
}

// readRulesHelper hides the paths before "--" with ReadRules over the real
// file system (reads only: nothing is writable), then runs the probes.
func readRulesHelper(args []string) int {
	var hidden, probes []string
	for i, a := range args {
		if a == "--" {
			hidden, probes = args[:i], args[i+1:]
			break
		}
	}
	exists := func(p string) (bool, bool) {
		fi, err := os.Lstat(p)
		return err == nil && fi.IsDir(), err == nil && fi.Mode()&os.ModeSymlink == 0
	}
	list := func(dir string) []string {
		ents, _ := os.ReadDir(dir)
		names := make([]string, len(ents))
		for i, e := range ents {
			names[i] = e.Name()
		}
		return names
	}
	rules, err := ReadRules(hidden, exists, list)
	if err != nil {
		return fatalf("%v", err)
	}
	fd, err := rulesetFD(Ruleset{HandledFS: fsAt(ABI()) &^ fsResolveUnix, Paths: rules})
	if err != nil {
		return fatalf("%v", err)
	}
	if err := restrictSelf(fd, true); err != nil {
		return fatalf("%v", err)
	}
	for _, p := range probes {
		fmt.Printf("%s -> %s\n", p, outcome(try(p)))
	}
	return 0
}

func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	if errno, ok := err.(syscall.Errno); ok {
		return unix.ErrnoName(errno)
	}
	return err.Error()
}

// try runs one probe, "op:arg[:arg]".
func try(p string) error {
	op, arg, _ := strings.Cut(p, ":")
	a, b, _ := strings.Cut(arg, ":")
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
		return connectAbstract(a)
	case "kill":
		return kill(a, b)
	case "pty":
		return openPty()
	case "other-thread-create":
		return onOtherThread(func() error { return create(a) })
	}
	return fmt.Errorf("unknown probe %q", p)
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

func connectAbstract(name string) error {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Connect(fd, &unix.SockaddrUnix{Name: "@" + name})
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
	slave, err := unix.Open("/dev/pts/"+strconv.Itoa(n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(slave)
	_, err = unix.IoctlGetWinsize(slave, unix.TIOCGWINSZ)
	return err
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
