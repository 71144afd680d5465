package probe

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Attack is the probe program the e2e tests run inside the real sandbox
// (as $ATTACK, a test binary that calls it): args are KIND TARGET..., one
// thing the sandbox must stop. It prints "attack succeeded" and returns 0,
// or prints what the kernel said and returns 1; "syscall NAME" prints the
// outcome of one of the probes Syscall knows and returns 0. The tests
// judge the effect from outside.
func Attack(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: attack tcp|udp|unix|abstract|uring-unix|syscall|stdin-connect|stdin-sendto|traced|swap|write|openw|kill|ptrace TARGET")
		return 2
	}
	if args[0] == "syscall" {
		return printSyscall(args[1])
	}
	if err := attack(args[0], args[1], args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "attack %s: %v\n", args[0], err)
		return 1
	}
	fmt.Println("attack succeeded")
	return 0
}

func attack(kind, target string, rest []string) error {
	switch kind {
	case "tcp", "unix", "udp":
		return dial(kind, target)
	case "abstract":
		return dial("unix", "@"+target)
	case "uring-unix":
		return uringConnect(target)
	case "stdin-connect":
		return stdinConnect(target)
	case "stdin-sendto":
		return syscall.Sendto(0, []byte("ZS-PROBE\n"), 0, &syscall.SockaddrUnix{Name: target})
	case "traced":
		return traced(append([]string{target}, rest...))
	case "swap":
		return swapLoop(target, rest)
	case "write":
		return os.WriteFile(target, []byte("attack\n"), 0o644)
	case "openw":
		return openClose(target, unix.O_WRONLY)
	case "kill":
		return kill(target, "9")
	case "ptrace":
		return ptraceAttach(target)
	}
	return fmt.Errorf("unknown attack %q", kind)
}

// dial connects (for udp: sends) to addr and writes a line.
func dial(network, addr string) error {
	c, err := net.DialTimeout(network, addr, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Write([]byte("ZS-PROBE\n"))
	return err
}

// stdinConnect connects the socket on stdin to a unix socket and writes.
func stdinConnect(path string) error {
	if err := syscall.Connect(0, &syscall.SockaddrUnix{Name: path}); err != nil {
		return err
	}
	_, err := syscall.Write(0, []byte("ZS-PROBE\n"))
	return err
}
