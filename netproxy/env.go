package netproxy

import "strings"

// NoProxy is NO_PROXY under the allowlist: the command's own loopback (on
// Linux its private namespace's, where only its own servers and the proxy
// listen) is reached directly; everything else goes through the proxy.
const NoProxy = "localhost,127.0.0.1,::1"

// Env returns env with the proxy variables pointing at addr (host:port),
// both cases, replacing the caller's: HTTP_PROXY and HTTPS_PROXY as an
// HTTP proxy, ALL_PROXY as SOCKS5 with names resolved by the proxy, and
// NO_PROXY (NoProxy) when loopbackDirect. Without it, loopback goes
// through the proxy too: an allow entry that names a loopback address
// means the host's (a local registry mirror), which only the proxy reaches.
func Env(env []string, addr string, loopbackDirect bool) []string {
	vars := ProxyVars(addr, loopbackDirect)
	out := make([]string, 0, len(env)+len(vars))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := proxyNames[strings.ToUpper(k)]; !ours {
			out = append(out, kv)
		}
	}
	return append(out, vars...)
}

var proxyNames = map[string]struct{}{"HTTP_PROXY": {}, "HTTPS_PROXY": {}, "ALL_PROXY": {}, "NO_PROXY": {}}

// ProxyVars are the variables Env sets, KEY=VALUE, in a fixed order.
func ProxyVars(addr string, loopbackDirect bool) []string {
	vars := [][2]string{
		{"HTTP_PROXY", "http://" + addr}, {"HTTPS_PROXY", "http://" + addr},
		{"ALL_PROXY", "socks5h://" + addr},
	}
	if loopbackDirect {
		vars = append(vars, [2]string{"NO_PROXY", NoProxy})
	}
	var out []string
	for _, kv := range vars {
		out = append(out, kv[0]+"="+kv[1], strings.ToLower(kv[0])+"="+kv[1])
	}
	return out
}
