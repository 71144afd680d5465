//go:build linux

// Command attack is run inside the sandbox by the escape tests. Each
// subcommand tries one thing the sandbox must stop and reports what the
// kernel said; the tests judge the effect from outside.
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: attack tcp|udp|unix|abstract|uring-unix|openw|kill|ptrace TARGET")
		os.Exit(2)
	}
	if err := attack(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintf(os.Stderr, "attack %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Println("attack succeeded")
}

func attack(kind, target string) error {
	switch kind {
	case "tcp", "unix":
		return dial(kind, target)
	case "abstract":
		return dial("unix", "@"+target)
	case "udp":
		return sendUDP(target)
	case "uring-unix":
		return uringConnect(target)
	case "syscall":
		return probe(target)
	case "stdin-connect":
		return stdinConnect(target)
	case "stdin-sendto":
		return syscall.Sendto(0, []byte("ZS-PROBE\n"), 0, &syscall.SockaddrUnix{Name: target})
	case "traced":
		return traced(os.Args[2:])
	case "swap":
		return swapLoop(target, os.Args[3:])
	case "write":
		return os.WriteFile(target, []byte("attack\n"), 0o644)
	case "openw":
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err == nil {
			f.Close()
		}
		return err
	case "kill":
		return withPid(target, func(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) })
	case "ptrace":
		return withPid(target, func(pid int) error { return syscall.PtraceAttach(pid) })
	}
	return fmt.Errorf("unknown attack %q", kind)
}

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

func sendUDP(addr string) error {
	c, err := net.Dial("udp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Write([]byte("ZS-PROBE\n"))
	return err
}

func withPid(s string, f func(int) error) error {
	pid, err := strconv.Atoi(s)
	if err != nil {
		return err
	}
	return f(pid)
}
