package e2e

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// ownAddr stands for a public address of this host's: the tests put it on
// the loopback of a network namespace of their own, where zsandbox runs.
// routedAddr is in localRoute, a range a local route delivers to the host
// though no interface lists it (AnyIP).
const (
	ownAddr    = "203.0.113.50"
	routedAddr = "198.51.100.7"
	localRoute = "198.51.100.0/24"
)

// inOwnAddrNamespace runs f on a thread of its own in a new network
// namespace whose loopback also holds ownAddr (as lo:1) and localRoute, so
// what f listens on and starts (zsandbox, its proxy) is there, as on a host
// with a public address on an interface. The thread is never unlocked: it
// ends with f (and what it starts inherits its namespace).
func inOwnAddrNamespace(t *testing.T, f func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" {
			t.Fatal("needs root to make a network namespace for the test")
		}
		t.Skip("needs root to make a network namespace for the test")
	}
	fail := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer close(fail)
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			fail <- err
			return
		}
		if err := ifaceAddr("lo", nil); err != nil {
			fail <- err
			return
		}
		if err := ifaceAddr("lo:1", net.ParseIP(ownAddr).To4()); err != nil {
			fail <- err
			return
		}
		if b, err := exec.Command("ip", "route", "add", "local", localRoute, "dev", "lo").CombinedOutput(); err != nil {
			fail <- fmt.Errorf("ip route add local %s: %v: %s", localRoute, err, b)
			return
		}
		f()
	}()
	if err := <-fail; err != nil {
		t.Fatalf("network namespace with %s: %v", ownAddr, err)
	}
}

// ifaceAddr brings the interface up, with the IPv4 address a when given.
func ifaceAddr(name string, a net.IP) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if a != nil {
		ifr, _ := unix.NewIfreq(name)
		if err := ifr.SetInet4Addr(a); err != nil {
			return err
		}
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFADDR, ifr); err != nil {
			return err
		}
	}
	ifr, _ := unix.NewIfreq(name)
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// TestAllowlistOwnAddress (attack: DNS rebinding to the host's own public
// address): an allowed name that resolves to one of the host's interface
// addresses, or to one a local route delivers here, reaches the host's
// daemons that listen on every address (as loopback would, and past a
// firewall that trusts lo). The proxy refuses it unless the address is
// allowed too; with the address allowed the same connection arrives, so
// the refusal is the rule's.
func TestAllowlistOwnAddress(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		script := filepath.Join(e.outside, "echo.py")
		if err := os.WriteFile(script, []byte(echoThroughProxy), 0o644); err != nil {
			t.Fatal(err)
		}
		inOwnAddrNamespace(t, func() {
			daemon := serveStream(t, "tcp4", "0.0.0.0:0", func(c net.Conn) { io.Copy(c, c) })
			_, port, _ := net.SplitHostPort(daemon.addr)
			run := func(addr string, flags ...string) result {
				cmd := e.command(e.proj, append(append([]string{"exec"}, flags...), "--", "/usr/bin/python3", script, "own.allow.test:"+port)...)
				cmd.Env = append(cmd.Env, "ZSANDBOX_TEST_RESOLVE=own.allow.test="+addr)
				return e.collect(cmd)
			}
			for _, addr := range []string{ownAddr, routedAddr} {
				r := run(addr, "--allow-domain", "own.allow.test")
				mustFail(t, r, "a name resolving to the host's own address "+addr)
				if !strings.Contains(r.Stderr, " 403 ") || !strings.Contains(r.Stderr, "blocked network access to own.allow.test:"+port) {
					t.Errorf("%s: want a 403 and the hint naming own.allow.test:%s\n%s", addr, port, r)
				}
				daemon.quiet(t, "a name resolving to the host's own address "+addr)

				r = run(addr, "--allow-domain", "own.allow.test", "--allow-domain", addr)
				mustSucceed(t, r, "the host's own address allowed explicitly")
				if n := daemon.hits.Swap(0); n != 1 {
					t.Errorf("with %s allowed the daemon got %d connections, want 1\n%s", addr, n, r)
				}
			}
		})
	})
}

// TestAllowlistMetadataAddress (attack: DNS rebinding to a cloud's
// metadata service): an allowed name that resolves to one of them is
// refused as such, Azure's WireServer (a public address, 168.63.129.16)
// included; the 403 says why. No listener can stand at these addresses, so
// the proxy's answer is what is checked.
func TestAllowlistMetadataAddress(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, addr := range []string{"169.254.169.254", "168.63.129.16"} {
			cmd := e.command(e.proj, "exec", "--allow-domain", "meta.allow.test", "--", "curl", "-m", "10", "-sS", "http://meta.allow.test/")
			cmd.Env = append(cmd.Env, "ZSANDBOX_TEST_RESOLVE=meta.allow.test="+addr)
			r := e.collect(cmd)
			want := "resolves to " + addr + ", a cloud metadata address"
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("%s: want the 403 %q\n%s", addr, want, r)
			}
		}
	})
}
