package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// TestAloneAbstractUnderNetworkDeny: --backend landlock --network deny
// --allow-unix-sockets. explain said the host's abstract sockets stay out of
// reach ("own network namespace"), but this backend has none and dropped
// the abstract scope with --allow-unix-sockets: `attack abstract NAME`
// reached a host listener. Now the scope stays under --network deny, as
// explain says; under --network allow the same attack reaches the
// listener, which proves it works. Root is refused by this backend.
func TestAloneAbstractUnderNetworkDeny(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		if e.id.UID == 0 {
			return // --backend landlock refuses root (TestAloneBackend)
		}
		name := "zsandbox-e2e-" + harness.RandHex(4)
		l := listenStream(t, "unix", "@"+name)
		flags := []string{"exec", "--backend", "landlock", "--no-warning", "--allow-unix-sockets"}
		run := func(net string) result {
			return e.noUserns(t, e.proj, append(flags, "--network", net, "--", attackBin, "abstract", name)...)
		}
		mustFail(t, run("deny"), "abstract socket under --network deny --allow-unix-sockets")
		l.quiet(t, "abstract under --network deny")
		doc := e.noUserns(t, e.proj, "explain", "--backend", "landlock", "--network", "deny", "--allow-unix-sockets")
		if !strings.Contains(doc.Stdout, "landlock: scoped: abstract_unix_socket") {
			t.Errorf("explain does not list the abstract scope\n%s", doc)
		}
		mustSucceed(t, run("allow"), "abstract socket under --network allow --allow-unix-sockets")
		if !waitFor(2*time.Second, func() bool { return l.hits.Load() == 1 }) {
			t.Errorf("under --network allow the attack reached the listener %d times, want 1", l.hits.Load())
		}
	})
}
