package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// The test names the proxy resolves (ZSANDBOX_TEST_RESOLVE, honoured only
// by the test build of zsandbox): all lead to the host's 127.0.0.1, so the
// DNS-rebinding defence refuses them unless 127.0.0.1 is allowed too.
const testNames = "web.allow.test=127.0.0.1,secure.allow.test=127.0.0.1,echo.allow.test=127.0.0.1," +
	"denied.test=127.0.0.1,a.example.test=127.0.0.1,evilexample.test=127.0.0.1,example.test.evil=127.0.0.1,v6.allow.test=::1"

// webServer is an HTTP(S) server on the host's loopback that counts the
// requests it got and serves /hello and a dumb-HTTP git repository.
type webServer struct {
	port int
	hits atomic.Int32
}

func (w *webServer) addr() string { return "127.0.0.1:" + strconv.Itoa(w.port) }

func startWeb(t *testing.T, cert *tls.Certificate, gitRoot string) *webServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &webServer{port: l.Addr().(*net.TCPAddr).Port}
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(rw http.ResponseWriter, r *http.Request) { fmt.Fprint(rw, "allowlist-ok host="+r.Host) })
	if gitRoot != "" {
		mux.Handle("/git/", http.StripPrefix("/git/", http.FileServer(http.Dir(gitRoot))))
		// Smart HTTP: git http-backend as a CGI program.
		mux.Handle("/smart/", &cgi.Handler{Path: gitPath(t), Args: []string{"http-backend"}, Root: "/smart",
			Env: []string{"GIT_PROJECT_ROOT=" + gitRoot, "GIT_HTTP_EXPORT_ALL=1"}})
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.hits.Add(1)
		mux.ServeHTTP(rw, r)
	})}
	if cert != nil {
		l = tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{*cert}})
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return w
}

func (w *webServer) quiet(t *testing.T, what string) {
	t.Helper()
	time.Sleep(50 * time.Millisecond)
	if n := w.hits.Load(); n != 0 {
		t.Errorf("%s: the host's server on %s got %d requests, want 0", what, w.addr(), n)
	}
}

// testCA makes a CA and a certificate for secure.allow.test signed by it;
// it writes the CA's PEM to caFile.
func testCA(t *testing.T, caFile string) *tls.Certificate {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "zsandbox test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ = x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "secure.allow.test"},
		DNSNames: []string{"secure.allow.test"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// allowRun runs a shell script under the allowlist flags with the test
// names resolvable.
func (e *env) allowRun(script string, flags ...string) result {
	e.t.Helper()
	cmd := e.command(e.proj, append(append([]string{"exec"}, flags...), "--", "sh", "-c", script)...)
	cmd.Env = append(cmd.Env, "ZSANDBOX_TEST_RESOLVE="+testNames)
	return e.collect(cmd)
}

func gitPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// bareRepo makes a bare git repository served as dumb HTTP under root.
func bareRepo(t *testing.T, root string) {
	t.Helper()
	work := filepath.Join(root, "work")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", work},
		{"-C", work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "allowlist-commit"},
		{"clone", "-q", "--bare", work, filepath.Join(root, "repo.git")},
		{"-C", filepath.Join(root, "repo.git"), "update-server-info"},
	} {
		if b, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, b)
		}
	}
}

// TestAllowlistReachable: an allowed name (with its address allowed too)
// is reachable through the proxy variables by curl (HTTP, HTTPS with the
// certificate verified end to end, SOCKS5), python urllib, git clone over
// HTTP and node's http module.
func TestAllowlistReachable(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ca := filepath.Join(e.outside, "ca.pem")
		gitRoot := filepath.Join(e.outside, "git")
		bareRepo(t, gitRoot)
		web := startWeb(t, nil, gitRoot)
		tlsWeb := startWeb(t, testCA(t, ca), "")
		flags := []string{"--allow-domain", "web.allow.test", "--allow-domain", "secure.allow.test",
			"--allow-domain", web.addr(), "--allow-domain", tlsWeb.addr()}
		wp, sp := web.port, tlsWeb.port

		r := e.allowRun(fmt.Sprintf("curl -m 10 -sSf http://web.allow.test:%d/hello", wp), flags...)
		mustSucceed(t, r, "curl http through the proxy")
		if !strings.Contains(r.Stdout, "allowlist-ok host=web.allow.test") {
			t.Errorf("curl http: got %q", r.Stdout)
		}
		r = e.allowRun(fmt.Sprintf("curl -m 10 -sSf --cacert %s https://secure.allow.test:%d/hello", ca, sp), flags...)
		mustSucceed(t, r, "curl https through CONNECT, verified with the test CA")
		if !strings.Contains(r.Stdout, "allowlist-ok") {
			t.Errorf("curl https: got %q", r.Stdout)
		}
		r = e.allowRun(fmt.Sprintf("curl -m 10 -sSf -x socks5h://127.0.0.1:3128 http://web.allow.test:%d/hello", wp), flags...)
		mustSucceed(t, r, "curl through SOCKS5 with a host name")
		py := fmt.Sprintf(`import ssl, urllib.request
print(urllib.request.urlopen("http://web.allow.test:%d/hello").read().decode())
ctx = ssl.create_default_context(cafile=%q)
print(urllib.request.urlopen("https://secure.allow.test:%d/hello", context=ctx).read().decode())`, wp, ca, sp)
		r = e.allowRun("/usr/bin/python3 -c '"+py+"'", flags...)
		mustSucceed(t, r, "python urllib http and https")
		if strings.Count(r.Stdout, "allowlist-ok") != 2 {
			t.Errorf("python: got %q", r.Stdout)
		}
		r = e.allowRun(fmt.Sprintf("git clone -q http://web.allow.test:%d/git/repo.git clone && git -C clone log --format=%%s", wp), flags...)
		mustSucceed(t, r, "git clone over dumb HTTP")
		if !strings.Contains(r.Stdout, "allowlist-commit") {
			t.Errorf("git clone: got %q", r.Stdout)
		}
		r = e.allowRun(fmt.Sprintf("GIT_TRACE_CURL_NO_DATA=1 git clone -q http://web.allow.test:%d/smart/repo.git smart && git -C smart log --format=%%s", wp), flags...)
		mustSucceed(t, r, "git clone over smart HTTP (git http-backend)")
		if !strings.Contains(r.Stdout, "allowlist-commit") {
			t.Errorf("git clone (smart): got %q", r.Stdout)
		}
		// node 20's fetch ignores the proxy variables (see
		// TestAllowlistNodeFetch); its http module speaks to the proxy.
		js := fmt.Sprintf(`require("http").get({host: "127.0.0.1", port: 3128, path: "http://web.allow.test:%d/hello", headers: {host: "web.allow.test:%d"}}, r => r.pipe(process.stdout))`, wp, wp)
		r = e.allowRun("node -e '"+js+"'", flags...)
		mustSucceed(t, r, "node http through the proxy")
		if !strings.Contains(r.Stdout, "allowlist-ok") {
			t.Errorf("node: got %q", r.Stdout)
		}
		if strings.Contains(r.Stderr, "zsandbox: hint: blocked") {
			t.Errorf("a run with nothing refused printed a block hint:\n%s", r)
		}
	})
}

// TestAllowlistNodeFetch: node's fetch (undici) ignores HTTP_PROXY unless
// NODE_USE_ENV_PROXY=1 (node 24+); where it ignores it, it fails closed: the
// namespace has no route out, so the server sees nothing.
func TestAllowlistNodeFetch(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		web := startWeb(t, nil, "")
		js := fmt.Sprintf(`fetch("http://web.allow.test:%d/hello").then(r => r.text()).then(console.log)`, web.port)
		r := e.allowRun("NODE_USE_ENV_PROXY=1 node -e '"+js+"'", "--allow-domain", "web.allow.test", "--allow-domain", web.addr())
		if r.Code == 0 && strings.Contains(r.Stdout, "allowlist-ok") {
			t.Logf("node fetch honours the proxy variables here")
			return
		}
		mustFail(t, r, "node fetch that ignores the proxy")
		web.quiet(t, "node fetch without the proxy")
	})
}

// TestAllowlistRefused: what the allowlist does not name fails, and the
// host's servers see nothing: a denied name, a client told to skip the
// proxy, a raw socket to the server's address, UDP, a wildcard's
// look-alikes, a Host header naming another host, a name that resolves to
// loopback without the address allowed, IPv6 literals, the proxy itself.
func TestAllowlistRefused(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		allowed := startWeb(t, nil, "")
		victim := startWeb(t, nil, "")
		udp := listenUDP(t)
		v6 := listenStream(t, "tcp6", "[::1]:0")
		vp := victim.port
		flags := []string{"--allow-domain", "web.allow.test", "--allow-domain", "*.example.test", "--allow-domain", allowed.addr()}

		cases := []struct{ what, script, stderr string }{
			{"denied name", fmt.Sprintf("curl -m 10 -sSf http://denied.test:%d/hello", vp), "403"},
			{"curl --noproxy", fmt.Sprintf("curl -m 10 -sSf --noproxy '*' http://127.0.0.1:%d/hello", vp), ""},
			{"raw socket to the server's address", fmt.Sprintf("$ATTACK tcp 127.0.0.1:%d", vp), ""},
			{"raw socket to the server's address over IPv6", fmt.Sprintf("$ATTACK tcp [::ffff:127.0.0.1]:%d", vp), ""},
			{"UDP to the host's listener", "$ATTACK udp " + udp.addr + " && sleep 0.1 && exit 1", ""},
			{"UDP/DNS to an outside resolver", "$ATTACK udp 8.8.8.8:53", ""},
			{"wildcard look-alike evilexample.test", fmt.Sprintf("curl -m 10 -sSf http://evilexample.test:%d/hello", vp), "403"},
			{"wildcard look-alike example.test.evil", fmt.Sprintf("curl -m 10 -sSf http://example.test.evil:%d/hello", vp), "403"},
			{"wildcard match that resolves to loopback", fmt.Sprintf("curl -m 10 -sSf http://a.example.test:%d/hello", vp), "403"},
			{"IPv4 literal not allowed", fmt.Sprintf("curl -m 10 -sSf http://127.0.0.1:%d/hello --noproxy ''", vp), "403"},
			{"IPv6 literal", fmt.Sprintf("curl -m 10 -sSf -g 'http://%s/hello' --noproxy ''", v6.addr), "403"},
			{"IPv6 literal, raw socket", "$ATTACK tcp " + v6.addr, ""},
			{"IPv6 literal through SOCKS5", fmt.Sprintf("curl -m 10 -sSf -g -x socks5://127.0.0.1:3128 'http://%s/hello'", v6.addr), ""},
			{"the proxy's own port through the proxy", "curl -m 10 -sSf --noproxy '' http://127.0.0.1:3128/", "403"},
			{"allowed name, Host header of another host", fmt.Sprintf(`printf 'GET http://web.allow.test:%d/hello HTTP/1.1\r\nHost: denied.test:%d\r\n\r\n' | curl -m 10 -sS --max-time 5 telnet://127.0.0.1:3128 | grep -q " 200 "`, allowed.port, vp), ""},
		}
		for _, c := range cases {
			r := e.allowRun(c.script, flags...)
			mustFail(t, r, c.what)
			if c.stderr != "" && !strings.Contains(r.Stderr, c.stderr) {
				t.Errorf("%s: stderr lacks %q\n%s", c.what, c.stderr, r)
			}
		}
		victim.quiet(t, "refused requests")
		allowed.quiet(t, "a Host header naming another host")
		udp.quiet(t, "UDP from the allowlist sandbox")
		v6.quiet(t, "IPv6 literals")

		// The same setup lets the allowed name through: the refusals above
		// are the allowlist's, not a broken proxy.
		r := e.allowRun(fmt.Sprintf("curl -m 10 -sSf http://web.allow.test:%d/hello", allowed.port), flags...)
		mustSucceed(t, r, "the allowed name")
	})
}

// TestAllowlistRebinding: an allowed name that resolves to 127.0.0.1 is
// refused unless the address is allowed too, and the 403 says how.
func TestAllowlistRebinding(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		web := startWeb(t, nil, "")
		r := e.allowRun(fmt.Sprintf("curl -m 10 -sS http://web.allow.test:%d/hello", web.port), "--allow-domain", "web.allow.test")
		if !strings.Contains(r.Stdout, "a loopback address (allow it explicitly with --allow-domain 127.0.0.1)") {
			t.Errorf("rebinding refusal: 403 body does not explain\n%s", r)
		}
		web.quiet(t, "a name that resolves to loopback")
		r = e.allowRun(fmt.Sprintf("curl -m 10 -sSf http://v6.allow.test:%d/hello", web.port), "--allow-domain", "v6.allow.test")
		mustFail(t, r, "a name that resolves to ::1")
	})
}

// TestAllowlistHostLoopback: an allow entry that names a loopback address
// means the host's (a local registry mirror): NO_PROXY then leaves
// loopback out, so a proxy-aware client reaches it through the proxy. The
// same client without the entry is refused and the server sees nothing.
func TestAllowlistHostLoopback(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		web := startWeb(t, nil, "")
		url := "http://" + web.addr() + "/hello"
		r := e.allowRun("curl -m 10 -sS "+url, "--allow-domain", "web.allow.test")
		web.quiet(t, "a host loopback address without an allow entry naming it")
		r = e.allowRun(`printf 'no_proxy=%s\n' "${no_proxy-unset}"; curl -m 10 -sSf `+url, "--allow-domain", web.addr())
		mustSucceed(t, r, "curl to the allowed host loopback address")
		if !strings.Contains(r.Stdout, "no_proxy=unset") {
			t.Errorf("an allowed loopback address must not be in NO_PROXY\n%s", r)
		}
		if n := web.hits.Load(); n != 1 {
			t.Errorf("the host server saw %d requests, want 1", n)
		}
	})
}

// TestAllowlistHint: the hint line lists the refused hosts, each once.
func TestAllowlistHint(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.allowRun("curl -m 10 -s http://denied.test:81/; curl -m 10 -s http://denied.test:81/; curl -m 10 -s https://pypi.org/; exit 3", "--allow-domain", "web.allow.test")
		want := "zsandbox: hint: blocked network access to denied.test:81, pypi.org:443; add --allow-domain HOST to allow\n"
		if r.Code != 3 || !strings.Contains(r.Stderr, want) {
			t.Errorf("want exit 3 and the hint %q\n%s", want, r)
		}
	})
}

// TestAllowlistOtherRun: a command cannot use another run's proxy: every
// run's listener is in its own namespace, so 127.0.0.1:3128 is its own.
func TestAllowlistOtherRun(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		web := startWeb(t, nil, "")
		flag := filepath.Join(e.tmp, "stop")
		a := e.command(e.proj, "exec", "--allow-domain", "web.allow.test", "--allow-domain", web.addr(), "--",
			"sh", "-c", fmt.Sprintf("curl -m 10 -sSf http://web.allow.test:%d/hello >/dev/null && while [ ! -e %s ]; do sleep 0.05; done", web.port, flag))
		a.Env = append(a.Env, "ZSANDBOX_TEST_RESOLVE="+testNames)
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { os.WriteFile(flag, nil, 0o644); a.Wait() }()
		if !waitFor(10*time.Second, func() bool { return web.hits.Load() == 1 }) {
			t.Fatal("the first run's allowed request never arrived")
		}
		r := e.allowRun(fmt.Sprintf("curl -m 10 -sSf http://web.allow.test:%d/hello", web.port), "--allow-domain", "other.test")
		mustFail(t, r, "another run's allowlist")
		time.Sleep(50 * time.Millisecond)
		if n := web.hits.Load(); n != 1 {
			t.Errorf("the server got %d requests, want only the first run's", n)
		}
	})
}

// TestAllowlistProxyFailure: when the namespace or its listener cannot be
// made, nothing runs (exit 127 with a message), never an unfiltered
// network.
func TestAllowlistProxyFailure(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marker := filepath.Join(e.tmp, "ran")
		cmd := e.command(e.proj, "exec", "--allow-domain", "web.allow.test", "--", "touch", marker)
		cmd.Env = append(cmd.Env, "ZSANDBOX_TEST_NETNS_FAIL=1")
		r := e.collect(cmd)
		if r.Code != 127 || !strings.Contains(r.Stderr, "zsandbox: error: network namespace: ") {
			t.Errorf("want exit 127 and a network namespace error\n%s", r)
		}
		harness.MustNotExist(t, marker)
	})
}

// startEcho is a raw TCP echo server on the host's loopback that counts
// its connections.
func startEcho(t *testing.T) *listener {
	return serveStream(t, "tcp", "127.0.0.1:0", func(c net.Conn) { io.Copy(c, c) })
}

// echoThroughProxy is a python client that opens an HTTP CONNECT tunnel
// to host:port through the proxy variables' address and echoes one line.
const echoThroughProxy = `import socket, sys
s = socket.create_connection(("127.0.0.1", 3128), timeout=10)
s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (sys.argv[1].encode(), sys.argv[1].encode()))
head = b""
while b"\r\n\r\n" not in head:
    b = s.recv(1)
    if not b: sys.exit("proxy closed: %r" % head)
    head += b
if b" 200 " not in head.split(b"\r\n")[0]: sys.exit("refused: %r" % head)
s.sendall(b"echo-through-the-tunnel\n")
print(s.recv(100).decode().strip())`

// TestAllowlistTCPTunnel: a raw TCP protocol (an echo server) works
// through CONNECT to an allowed name, bytes untouched; a denied name's
// tunnel never reaches the server.
func TestAllowlistTCPTunnel(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		echo := startEcho(t)
		_, port, _ := net.SplitHostPort(echo.addr)
		script := filepath.Join(e.outside, "echo.py")
		if err := os.WriteFile(script, []byte(echoThroughProxy), 0o644); err != nil {
			t.Fatal(err)
		}
		r := e.allowRun("/usr/bin/python3 "+script+" echo.allow.test:"+port, "--allow-domain", "echo.allow.test", "--allow-domain", echo.addr)
		mustSucceed(t, r, "raw TCP through CONNECT")
		if !strings.Contains(r.Stdout, "echo-through-the-tunnel") {
			t.Errorf("echo through the tunnel: got %q", r.Stdout)
		}
		echo.hits.Store(0)
		r = e.allowRun("/usr/bin/python3 "+script+" denied.test:"+port, "--allow-domain", "echo.allow.test", "--allow-domain", echo.addr)
		mustFail(t, r, "CONNECT to a denied name")
		echo.quiet(t, "CONNECT to a denied name")
	})
}

// socketFamilies tries socket(2) for families no proxy client needs and
// prints each one's errno (0 when it was made).
const socketFamilies = `import socket
for name, fam, typ, proto in (("vsock", 40, 1, 0), ("packet", 17, 3, 0), ("alg", 38, 5, 0), ("bluetooth", 31, 1, 0), ("appletalk", 5, 2, 0), ("tipc", 30, 5, 0), ("uevent", 16, 2, 15), ("sockdiag", 16, 3, 4)):
    try:
        socket.socket(fam, typ, proto).close(); print(name, 0)
    except OSError as e:
        print(name, e.errno)`

// TestAllowlistSocketFamilies: under the allowlist the seccomp filter
// refuses (EPERM) every socket family but unix, IPv4, IPv6 and netlink,
// and every netlink protocol but NETLINK_ROUTE: AF_VSOCK would reach the
// hypervisor past any network namespace, and NETLINK_KOBJECT_UEVENT hears
// the host's device events when root's namespace has no user namespace. Under
// --network allow the same families get the kernel's own answers, so the
// refusal is the filter's.
func TestAllowlistSocketFamilies(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		script := filepath.Join(e.outside, "families.py")
		if err := os.WriteFile(script, []byte(socketFamilies), 0o644); err != nil {
			t.Fatal(err)
		}
		r := e.allowRun("/usr/bin/python3 "+script, "--allow-domain", "web.allow.test")
		mustSucceed(t, r, "the socket probe")
		for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			if !strings.HasSuffix(line, " 1") {
				t.Errorf("under the allowlist, socket(%s): want EPERM (1) from the filter\n%s", line, r)
			}
		}
		ctl := e.allowRun("/usr/bin/python3 "+script, "--network", "allow")
		if !strings.Contains(ctl.Stdout, "alg 97") && !strings.Contains(ctl.Stdout, "alg 0") {
			t.Errorf("control (--network allow): AF_ALG should get the kernel's answer, not EPERM\n%s", ctl)
		}
		if !strings.Contains(ctl.Stdout, "uevent 0") {
			t.Errorf("control (--network allow): a uevent netlink socket should be made\n%s", ctl)
		}
		r = e.allowRun(`exec /usr/bin/python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM).close(); socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).close(); socket.socket(16, socket.SOCK_RAW, 0).close(); socket.getaddrinfo("localhost", 80); print("ip-ok")'`, "--allow-domain", "web.allow.test")
		if !strings.Contains(r.Stdout, "ip-ok") {
			t.Errorf("IPv4/IPv6 and NETLINK_ROUTE sockets must stay usable under the allowlist\n%s", r)
		}
	})
}

// TestAllowlistLandlockBackend: the Landlock-only backend cannot make a
// network namespace, so it refuses the allowlist (127) instead of running
// with the host's network.
func TestAllowlistLandlockBackend(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marker := filepath.Join(e.tmp, "ran")
		r := e.allowRun("touch "+marker, "--backend", "landlock", "--allow-domain", "web.allow.test")
		if r.Code != 127 || !strings.Contains(r.Stderr, "zsandbox: error: ") {
			t.Errorf("--backend landlock --allow-domain: want exit 127 with a message\n%s", r)
		}
		if e.id.Name != "root" && !strings.Contains(r.Stderr, "use the bwrap backend") {
			t.Errorf("the refusal should name the bwrap backend\n%s", r)
		}
		harness.MustNotExist(t, marker)
	})
}

// TestAllowlistGoRole: the cgo-free build runs the namespace role in Go
// (the cgo build's runs in C before the Go runtime): the allowed name is
// reachable, a raw socket to the server is not, and a role that fails is a
// 127 with nothing run.
func TestAllowlistGoRole(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the built-in program is precompiled for amd64 only")
	}
	bin := noCgoZsandbox(t)
	each(t, func(t *testing.T, e *env) {
		web := startWeb(t, nil, "")
		victim := startWeb(t, nil, "")
		run := func(script string, extraEnv ...string) result {
			cmd := e.command(e.proj, "exec", "--allow-domain", "web.allow.test", "--allow-domain", web.addr(), "--", "sh", "-c", script)
			cmd.Path, cmd.Args[0] = bin, bin
			cmd.Env = append(append(cmd.Env, "ZSANDBOX_TEST_RESOLVE="+testNames), extraEnv...)
			return e.collect(cmd)
		}
		r := run(fmt.Sprintf("curl -m 10 -sSf http://web.allow.test:%d/hello", web.port))
		mustSucceed(t, r, "curl through the Go role's proxy")
		r = run(fmt.Sprintf("$ATTACK tcp %s", victim.addr()))
		mustFail(t, r, "raw socket under the Go role")
		victim.quiet(t, "raw socket under the Go role")
		own := filepath.Join(e.outside, "own.py")
		if err := os.WriteFile(own, []byte(ownConnect), 0o644); err != nil {
			t.Fatal(err)
		}
		if r = run("/usr/bin/python3 " + own); !strings.Contains(r.Stdout, "own 13\n") || !strings.Contains(r.Stdout, "proxy 0\n") {
			t.Errorf("the Go stage 2's port rule: want own-port connect EACCES and the proxy reachable\n%s", r)
		}
		marker := filepath.Join(e.tmp, "ran")
		r = run("touch "+marker, "ZSANDBOX_TEST_NETNS_FAIL=1")
		if r.Code != 127 || !strings.Contains(r.Stderr, "zsandbox: error: network namespace: ") {
			t.Errorf("Go role failure: want exit 127 and a network namespace error\n%s", r)
		}
		harness.MustNotExist(t, marker)
	})
}

// TestAllowlistHintEscapes: a SOCKS5 request for a "name" holding terminal
// escapes is refused, and the hint line (zsandbox's own) shows it quoted,
// never the raw bytes.
func TestAllowlistHintEscapes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		py := `import socket
s = socket.create_connection(("127.0.0.1", 3128)); s.sendall(b"\x05\x01\x00"); s.recv(2)
h = b"\x1b]0;owned\x07\nzsandbox: hint: x"
s.sendall(b"\x05\x01\x00\x03" + bytes([len(h)]) + h + b"\x01\xbb"); s.recv(10)`
		script := filepath.Join(e.outside, "socks.py")
		if err := os.WriteFile(script, []byte(py), 0o644); err != nil {
			t.Fatal(err)
		}
		r := e.allowRun("/usr/bin/python3 "+script, "--allow-domain", "web.allow.test")
		if strings.Contains(r.Stderr, "\x1b") || !strings.Contains(r.Stderr, `blocked network access to "[\x1b]0;owned\a\nzsandbox: hint: x]:443"`) {
			t.Errorf("the hint must quote a name with escapes\n%q", r.Stderr)
		}
	})
}

// ownConnect listens on a loopback port of the sandbox's own namespace
// and connects to it, then to the proxy; it prints each outcome.
const ownConnect = `import socket
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen()
try:
    socket.create_connection(l.getsockname(), timeout=5).close(); print("own 0")
except OSError as e:
    print("own", e.errno)
socket.create_connection(("127.0.0.1", 3128), timeout=5).close(); print("proxy 0")`

// TestAllowlistLandlockPort: behind the namespace, Landlock (ABI 4+) lets
// TCP connect reach the proxy's port alone: a connection to any other port
// is refused (EACCES) even on the sandbox's own loopback, so a namespace
// that leaked a route would still lead nowhere but the proxy. With
// --landlock off the same connection works (the refusal is Landlock's).
// The cgo-free build's Go stage 2 is checked in TestAllowlistGoRole.
func TestAllowlistLandlockPort(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		script := filepath.Join(e.outside, "own.py")
		if err := os.WriteFile(script, []byte(ownConnect), 0o644); err != nil {
			t.Fatal(err)
		}
		r := e.allowRun("/usr/bin/python3 "+script, "--allow-domain", "web.allow.test", "--landlock", "require")
		if !strings.Contains(r.Stdout, "own 13\n") || !strings.Contains(r.Stdout, "proxy 0\n") {
			t.Errorf("Landlock under the allowlist: want own-port connect EACCES and the proxy reachable\n%s", r)
		}
		r = e.allowRun("/usr/bin/python3 "+script, "--allow-domain", "web.allow.test", "--landlock", "off")
		if !strings.Contains(r.Stdout, "own 0\n") {
			t.Errorf("control (--landlock off): the own-port connect should work\n%s", r)
		}
	})
}
