package e2e

import (
	"path/filepath"
	"testing"
	"time"
)

// TestTracedSocketRule: a user profile whose rule for socket is
// SCMP_ACT_TRACE reads like a refusal (ENOSYS), but the command can trace
// its own child and let each traced call run. The attack: `attack traced
// unix SOCK` under --network allow and deny reached a host listener while
// explain said socket(AF_UNIX) was refused, because WithSockets took the
// TRACE rule for a restrictive one and added no AF_UNIX rule. With
// --allow-unix-sockets the same traced attack reaches the listener, which
// proves the tracer inside the sandbox works.
func TestTracedSocketRule(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		prof := filepath.Join(e.base, "trace-socket.json")
		e.write(prof, `{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["socket", "socketpair"], "action": "SCMP_ACT_TRACE"}]}`)
		l := unixListener(t, filepath.Join(e.outside, "traced.sock"))
		for _, net := range []string{"allow", "deny"} {
			r := e.run("exec", "--network", net, "--seccomp-profile", prof, "--", attackBin, "traced", "unix", l.addr)
			mustFail(t, r, "traced socket(AF_UNIX) under --network "+net)
		}
		l.quiet(t, "traced socket rule")
		r := e.run("exec", "--allow-unix-sockets", "--seccomp-profile", prof, "--", attackBin, "traced", "unix", l.addr)
		mustSucceed(t, r, "traced socket with --allow-unix-sockets")
		if !waitFor(2*time.Second, func() bool { return l.hits.Load() == 1 }) {
			t.Errorf("with --allow-unix-sockets the traced attack reached the listener %d times, want 1, so this test proves nothing", l.hits.Load())
		}
	})
}
