//go:build linux || darwin

package sandbox

import (
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/zsandbox/zsandbox/netproxy"
	"github.com/zsandbox/zsandbox/plan"
)

// allowlistRun is the proxy of one run under --allow-domain; nil (every
// method a no-op) in the other network modes.
type allowlistRun struct {
	proxy          *netproxy.Proxy
	ls             []net.Listener
	loopbackDirect bool // NO_PROXY names loopback (plan.Allowlist.LoopbackDirect)
}

func newAllowlistRun(a *plan.Allowlist) *allowlistRun {
	if a == nil {
		return nil
	}
	return &allowlistRun{proxy: netproxy.New(netproxy.Rules{Allowlist: a.Rules}), loopbackDirect: a.LoopbackDirect}
}

// serve proxies what arrives on l until done.
func (a *allowlistRun) serve(l net.Listener) {
	a.ls = append(a.ls, l)
	go a.proxy.Serve(l)
}

// env is the command's environment: the proxy variables point at addr.
func (a *allowlistRun) env(env []string, addr string) []string {
	if a == nil {
		return env
	}
	return netproxy.Env(env, addr, a.loopbackDirect)
}

// done stops the proxy and, with hints, prints the line naming what it
// refused.
func (a *allowlistRun) done(hints bool) {
	if a == nil {
		return
	}
	for _, l := range a.ls {
		l.Close()
	}
	a.proxy.Close()
	if h := netproxy.Hint(printable(a.proxy.Refused())); hints && h != "" {
		fmt.Fprintln(os.Stderr, "zsandbox: hint: "+h)
	}
}

// printable quotes the refused targets that are not plain printable ASCII:
// the names come from the sandboxed command (an invalid one is refused and
// still listed), and the hint line is zsandbox's own, so a name must not
// carry terminal escapes or a newline into it.
func printable(targets []string) []string {
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = t
		for _, r := range t {
			if r < 0x20 || r > 0x7e {
				out[i] = strconv.QuoteToASCII(t)
				break
			}
		}
	}
	return out
}
