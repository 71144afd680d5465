//go:build linux

package netns

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/exit"
)

// Spawn is one bwrap start through the role.
type Spawn struct{ parent, child *os.File }

// Wrap changes cmd (bwrap, its ExtraFiles in place) to start through the
// role in a new user and network namespace; call Listener after Start.
func Wrap(cmd *exec.Cmd) (*Spawn, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("network namespace: socketpair: %w", err)
	}
	s := &Spawn{parent: os.NewFile(uintptr(fds[0]), "netns-parent"), child: os.NewFile(uintptr(fds[1]), "netns-child")}
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, s.child)
	cmd.Args = append([]string{"zsandbox", RoleArg, strconv.Itoa(fd), cmd.Path}, cmd.Args...)
	cmd.Path = "/proc/self/exe"
	if testFail != "" {
		cmd.Env = append(cmd.Env, "ZSANDBOX_TEST_NETNS_FAIL=1") // the role's copy; see testfail.go
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		// Root may make a network namespace without a user namespace (a
		// millisecond less per run), and the namespace then belongs to the
		// host's user namespace: nothing inside bwrap's own user namespace
		// holds CAP_NET_ADMIN over it.
		a.Cloneflags |= unix.CLONE_NEWNET
		return s, nil
	}
	// An unprivileged caller needs a user namespace to own the network
	// namespace, and can map only itself. Its capabilities in the new
	// namespace would not survive exec, so CAP_NET_ADMIN (to bring lo up)
	// is made ambient; the role drops it before bwrap.
	a.Cloneflags |= unix.CLONE_NEWUSER | unix.CLONE_NEWNET
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN}
	return s, nil
}

// Close releases the socketpair (after a failed Start).
func (s *Spawn) Close() {
	s.parent.Close()
	s.child.Close()
}

// Listener receives the listener the role made, or the role's reason for
// failing. It closes zsandbox's ends of the socketpair.
func (s *Spawn) Listener() (net.Listener, error) {
	s.child.Close() // the role holds its own: its end closes when it execs or dies
	defer s.parent.Close()
	buf := make([]byte, 512)
	oob := make([]byte, unix.CmsgSpace(4))
	done := make(chan struct{})
	go func() {
		// A role that hangs must not hang zsandbox: the read ends with it.
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			unix.Shutdown(int(s.parent.Fd()), unix.SHUT_RDWR)
		}
	}()
	n, oobn, _, _, err := unix.Recvmsg(int(s.parent.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
	close(done)
	if err != nil {
		return nil, fmt.Errorf("network namespace: %w", err)
	}
	fd, ok := rights(oob[:oobn])
	if !ok {
		if n == 0 {
			return nil, errors.New("network namespace: the namespace role ended without a listener")
		}
		return nil, errors.New("network namespace: " + string(buf[:n]))
	}
	f := os.NewFile(uintptr(fd), "proxy-listener")
	defer f.Close()
	l, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("network namespace: listener: %w", err)
	}
	return l, nil
}

// rights returns the one descriptor passed in oob.
func rights(oob []byte) (int, bool) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil || len(msgs) != 1 {
		return 0, false
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return 0, false
	}
	return fds[0], true
}

// Role runs in the new namespaces: args are the socket's descriptor, bwrap's
// path and bwrap's argv. It never returns.
func Role(args []string) {
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "zsandbox: error: "+RoleArg+": bad arguments")
		os.Exit(127)
	}
	sock, err := strconv.Atoi(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "zsandbox: error: "+RoleArg+": bad descriptor")
		os.Exit(127)
	}
	unix.CloseOnExec(sock)
	lfd, err := listen()
	if err != nil {
		// zsandbox reports it (exit 127) and kills this process.
		unix.Sendmsg(sock, []byte(err.Error()), nil, nil, 0)
		os.Exit(127)
	}
	if err := unix.Sendmsg(sock, []byte{0}, unix.UnixRights(lfd), nil, 0); err != nil {
		os.Exit(127)
	}
	// Nothing of the namespace stays open here: the listener is zsandbox's.
	unix.Close(lfd)
	unix.Close(sock)
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "zsandbox: error: "+RoleArg+": dropping capabilities: "+err.Error())
		os.Exit(127)
	}
	err = unix.Exec(args[1], args[2:], os.Environ())
	exit.Exit(exit.NotRun(fmt.Sprintf("starting %s: %v", args[1], err)))
}

// testFail, set only in a test build (testfail.go), makes listen fail.
var testFail string

// listen brings lo up and listens on Addr.
func listen() (int, error) {
	if testFail != "" {
		return -1, errors.New(testFail)
	}
	if err := loopbackUp(); err != nil {
		return -1, fmt.Errorf("bringing up lo: %w", err)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("proxy socket: %w", err)
	}
	sa := &unix.SockaddrInet4{Port: Port, Addr: [4]byte{127, 0, 0, 1}}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("binding %s: %w", Addr, err)
	}
	if err := unix.Listen(fd, 512); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("listening on %s: %w", Addr, err)
	}
	return fd, nil
}

func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
