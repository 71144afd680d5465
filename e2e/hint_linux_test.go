package e2e

import (
	"bytes"
	"crypto/rand"
	"os/exec"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

const hintPrefix = "zsandbox: hint: "

func hintLines(r result) []string {
	var out []string
	for _, l := range strings.Split(r.Stderr, "\n") {
		if strings.HasPrefix(l, hintPrefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestWriteHint: a write outside the roots, from several languages, ends
// with one hint naming the roots and --writable.
func TestWriteHint(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		target := "/etc/zsandbox-hint-" + harness.RandHex(4)
		cmds := map[string][]string{
			"sh":     {"sh", "-c", "echo x > " + target},
			"go":     {attackBin, "write", target},
			"python": {"python3", "-c", "open('" + target + "', 'w')"},
			"node":   {"node", "-e", "require('fs').writeFileSync('" + target + "', 'x')"},
		}
		for name, argv := range cmds {
			if _, err := exec.LookPath(argv[0]); err != nil && name != "go" {
				t.Fatalf("%s is needed for this test: %v", argv[0], err)
			}
			r := e.run(append([]string{"exec", "--"}, argv...)...)
			hints := hintLines(r)
			if r.Code == 0 || len(hints) != 1 || !strings.Contains(hints[0], e.proj) ||
				!strings.Contains(hints[0], "--writable") || !strings.Contains(hints[0], target) {
				t.Errorf("%s: want one write hint naming %s, the cwd and --writable\n%s", name, target, r)
			}
		}
	})
}

// TestNetworkHint: a connection attempt under --network deny.
func TestNetworkHint(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for name, argv := range map[string][]string{
			"curl":   {"curl", "-sS", "--max-time", "5", "http://example.com/"},
			"python": {"python3", "-c", "import urllib.request; urllib.request.urlopen('http://example.com', timeout=5)"},
		} {
			r := e.run(append([]string{"exec", "--"}, argv...)...)
			hints := hintLines(r)
			if r.Code == 0 || len(hints) != 1 || !strings.Contains(hints[0], "--network allow") {
				t.Errorf("%s: want one network hint\n%s", name, r)
			}
		}
	})
}

// TestHiddenHint names the hidden path and never prints its content.
func TestHiddenHint(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.sh("cat $HOME/.ssh/id_rsa")
		hints := hintLines(r)
		if len(hints) != 1 || !strings.Contains(hints[0], e.home+"/.ssh") || !strings.Contains(hints[0], "hidden") {
			t.Errorf("want one hidden hint naming ~/.ssh\n%s", r)
		}
		assertNoSecret(t, e, r, "hidden hint")
	})
}

// TestNoHint: no hint for success, unrelated failures, a permission problem
// inside a writable root, or with --hint off.
func TestNoHint(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.write(e.proj+"/locked", "x")
		e.chownAll()
		cases := map[string][]string{
			"success":          {"exec", "--", "sh", "-c", "echo 'Read-only file system' >&2"},
			"unrelated":        {"exec", "--", "sh", "-c", "ls /nonexistent-zsandbox"},
			"exit code":        {"exec", "--", "false"},
			"in writable root": {"exec", "--", "sh", "-c", "chmod 000 locked; echo x > locked"},
			"hint off":         {"exec", "--hint", "off", "--", "sh", "-c", "echo x > /etc/zsandbox-nohint"},
		}
		for name, args := range cases {
			r := e.run(args...)
			if name == "in writable root" && e.id.UID == 0 {
				continue // root writes regardless of the mode bits
			}
			if hints := hintLines(r); len(hints) != 0 {
				t.Errorf("%s: want no hint\n%s", name, r)
			}
		}
	})
}

// TestLargeOutputPassesThroughHintPipes: 100 MiB on stdout and on stderr,
// through the pipes the recogniser reads, byte-exact.
func TestLargeOutputPassesThroughHintPipes(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		data := make([]byte, 100<<20)
		rand.Read(data)
		r := e.runIn(e.proj, data, "exec", "--", "sh", "-c", "cat")
		if !bytes.Equal([]byte(r.Stdout), data) {
			t.Errorf("stdout differs: %d bytes back", len(r.Stdout))
		}
		r = e.runIn(e.proj, data, "exec", "--", "sh", "-c", "cat >&2")
		if !bytes.Equal([]byte(r.Stderr), data) {
			t.Errorf("stderr differs: %d bytes back", len(r.Stderr))
		}
	})
}
