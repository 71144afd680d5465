package seatbelt_test

import (
	"path"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seatbelt"
)

// FuzzRender feeds arbitrary strings in as a writable root, a hidden path and
// a protected path. Render must never panic; whenever it accepts the input,
// the profile must pass the checker (so no string escaped its parameter and
// every parameter is bound and used), carry no raw path, and still hide,
// protect and grant what it was asked to.
func FuzzRender(f *testing.F) {
	f.Add("/Users/u/proj", "/Users/u/.ssh", "/Users/u/proj/.git/hooks", false)
	f.Add("/tmp", "/tmp/x/.env", "/var/folders/a/T/.git/config", true)
	f.Add(`/a")) (allow default) ("`, "/h\n(deny default)", `/p"; comment`, true)
	f.Add(`/q\"`, `/(param "WRITABLE_ROOT_0")`, "/#\"re\"", false)
	f.Add("/", "/x", "/y", false)
	f.Add("//tmp/../etc", "/etc", "/private/etc/x", true)
	f.Add("relative", "/x", "/y", false)
	f.Add("/a\x00b", "/x", "/y", false)
	base := baseText(f)
	f.Fuzz(func(t *testing.T, root, hide, prot string, allow bool) {
		p := &policy.Policy{
			Writable: roots(root, root+"/sub", "/tmp"),
			Hidden:   hidden(hide, root+"/.ssh"),
			Network:  policy.NetworkDeny,
		}
		if allow {
			p.Network = policy.NetworkAllow
		}
		protected := []string{prot, root + "/.git/hooks"}
		prof, err := seatbelt.Render(p, protected)
		if err != nil {
			if valid(root) && valid(hide) && valid(prot) {
				t.Fatalf("Render rejected valid paths %q %q %q: %v", root, hide, prot, err)
			}
			return
		}
		if !valid(root) || !valid(hide) || !valid(prot) {
			t.Fatalf("Render accepted invalid paths %q %q %q", root, hide, prot)
		}
		sp, err := checkProfile(prof)
		if err != nil {
			t.Fatalf("checkProfile: %v\nparams %q\n%s", err, prof.Params, prof.Text)
		}
		assertNoRawPaths(t, prof, base)
		checkParamValues(t, prof, append([]string{root, root + "/sub", "/tmp", hide, root + "/.ssh"}, protected...))
		checkFuzzDecisions(t, sp, root, hide, prot)
	})
}

func valid(p string) bool { return strings.HasPrefix(p, "/") && !strings.ContainsRune(p, 0) }

// checkParamValues: every parameter value is an input (canonical or as
// written, cleaned) or an ancestor of one.
func checkParamValues(t *testing.T, prof seatbelt.Profile, inputs []string) {
	t.Helper()
	var forms []string
	for _, in := range inputs {
		forms = append(forms, seatbelt.Canonicalize(in), path.Clean(in))
	}
	for _, prm := range prof.Params {
		ok := false
		for _, f := range forms {
			if policy.Within(f, prm.Value) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("parameter %s=%q is neither an input nor an ancestor of one", prm.Name, prm.Value)
		}
	}
}

func checkFuzzDecisions(t *testing.T, sp *sbProfile, root, hide, prot string) {
	t.Helper()
	h, pr, r := seatbelt.Canonicalize(hide), seatbelt.Canonicalize(prot), seatbelt.Canonicalize(root)
	if allow, line := sp.decide(request{op: "file-read-data", path: h}); allow {
		t.Errorf("hidden %q readable (line %d)", h, line)
	}
	if allow, line := sp.decide(request{op: "file-write-create", path: pr}); allow {
		t.Errorf("protected %q creatable (line %d)", pr, line)
	}
	probe := path.Join(r, "\x01fuzz")
	want := !policy.Within(probe, h) && !policy.Within(probe, pr) &&
		!policy.Within(probe, path.Join(r, ".ssh")) && !policy.Within(probe, path.Join(r, ".git/hooks"))
	if allow, line := sp.decide(request{op: "file-write-data", path: probe}); allow != want {
		t.Errorf("write %q in root allowed=%v (line %d), want %v", probe, allow, line, want)
	}
}
