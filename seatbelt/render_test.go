package seatbelt_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seatbelt"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden formats a profile as a txtar-style archive: the parameters, one per
// line with the value Go-quoted (a value may hold a newline), then the text.
func golden(prof seatbelt.Profile) string {
	var b strings.Builder
	b.WriteString("-- params --\n")
	for _, p := range prof.Params {
		fmt.Fprintf(&b, "%s=%q\n", p.Name, p.Value)
	}
	b.WriteString("-- profile.sb --\n")
	b.WriteString(prof.Text)
	return b.String()
}

func TestRenderGolden(t *testing.T) {
	for _, c := range renderCases() {
		t.Run(c.name, func(t *testing.T) {
			prof, err := seatbelt.Render(c.policy, c.protected)
			if err != nil {
				t.Fatalf("Render(%s): %v", c.name, err)
			}
			file := filepath.Join("testdata", c.name+".txtar")
			got := golden(prof)
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./seatbelt -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("Render(%s) mismatch (-want +got):\n%s", c.name, diff)
			}
		})
	}
}

// Every rendered profile passes the checker, carries no raw path, tags every
// deny, and uses each parameter.
func TestRenderChecks(t *testing.T) {
	base := baseText(t)
	for _, c := range renderCases() {
		t.Run(c.name, func(t *testing.T) {
			prof, err := seatbelt.Render(c.policy, c.protected)
			if err != nil {
				t.Fatalf("Render(%s): %v", c.name, err)
			}
			sp, err := checkProfile(prof)
			if err != nil {
				t.Fatalf("checkProfile(%s): %v\n%s", c.name, err, prof.Text)
			}
			assertNoRawPaths(t, prof, base)
			for _, r := range sp.rules {
				if !r.allow && r.message != "zsandbox" {
					t.Errorf("line %d: deny without (with message \"zsandbox\")", r.line)
				}
			}
		})
	}
}

// baseText is the profile of a policy with no paths at all: the text every
// profile shares, in which a parameter value may legitimately appear
// (a root named /dev/null would).
func baseText(t testing.TB) string {
	prof, err := seatbelt.Render(&policy.Policy{Network: policy.NetworkAllow}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return prof.Text
}

func assertNoRawPaths(t testing.TB, prof seatbelt.Profile, base string) {
	t.Helper()
	for _, p := range prof.Params {
		if strings.Contains(prof.Text, p.Value) && !strings.Contains(base, p.Value) {
			t.Errorf("parameter %s value %q appears in the profile text", p.Name, p.Value)
		}
	}
}

func TestArgs(t *testing.T) {
	prof := seatbelt.Profile{
		Text:   "(version 1)",
		Params: []seatbelt.Param{{"WRITABLE_ROOT_0", "/a=b"}, {"HIDDEN_0", "/x\ny"}},
	}
	want := []string{"-p", "(version 1)", "-D", "WRITABLE_ROOT_0=/a=b", "-D", "HIDDEN_0=/x\ny"}
	if diff := cmp.Diff(want, prof.Args()); diff != "" {
		t.Errorf("Args mismatch (-want +got):\n%s", diff)
	}
}

func TestCanonicalize(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp":                        "/private/tmp",
		"/tmp/":                       "/private/tmp",
		"/tmp/x":                      "/private/tmp/x",
		"//tmp//x/":                   "/private/tmp/x",
		"/var/folders/zz/T":           "/private/var/folders/zz/T",
		"/etc/ssl/cert.pem":           "/private/etc/ssl/cert.pem",
		"/private/tmp/x":              "/private/tmp/x",
		"/tmpfoo":                     "/tmpfoo", // a shared string prefix is not a parent
		"/variable":                   "/variable",
		"/etcetera/x":                 "/etcetera/x",
		"/Users/u/tmp":                "/Users/u/tmp",
		"/usr/local/var":              "/usr/local/var",
		"/tmp/../etc/passwd":          "/private/etc/passwd",
		"/":                           "/",
		"relative/tmp":                "relative/tmp",
		"/System/Volumes/Data/tmp/x1": "/System/Volumes/Data/tmp/x1",
	} {
		if got := seatbelt.Canonicalize(in); got != want {
			t.Errorf("Canonicalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRenderRejects(t *testing.T) {
	ok := func() *policy.Policy {
		return &policy.Policy{Writable: roots("/w"), Hidden: hidden("/h"), Network: policy.NetworkDeny}
	}
	for name, tc := range map[string]struct {
		mutate    func(*policy.Policy)
		protected []string
		want      string
	}{
		"nil policy":        {mutate: nil, want: "no policy to render"},
		"network unset":     {mutate: func(p *policy.Policy) { p.Network = "" }, want: `network ""`},
		"network bogus":     {mutate: func(p *policy.Policy) { p.Network = "maybe" }, want: `network "maybe"`},
		"relative root":     {mutate: func(p *policy.Policy) { p.Writable = roots("w") }, want: `writable root "w": not an absolute path`},
		"empty root":        {mutate: func(p *policy.Policy) { p.Writable = roots("") }, want: `writable root "": not an absolute path`},
		"NUL in hidden":     {mutate: func(p *policy.Policy) { p.Hidden = hidden("/a\x00b") }, want: `hidden path "/a\x00b": contains a NUL byte`},
		"relative hidden":   {mutate: func(p *policy.Policy) { p.Hidden = hidden("~/.ssh") }, want: `hidden path "~/.ssh": not an absolute path`},
		"relative protect":  {protected: []string{".git/hooks"}, want: `protected path ".git/hooks": not an absolute path`},
		"NUL in protected":  {protected: []string{"/w/\x00"}, want: "contains a NUL byte"},
		"empty protected":   {protected: []string{""}, want: `protected path ""`},
		"tilde in writable": {mutate: func(p *policy.Policy) { p.Writable = roots("~") }, want: `writable root "~"`},
	} {
		p := ok()
		if tc.mutate != nil {
			tc.mutate(p)
		} else if name == "nil policy" {
			p = nil
		}
		_, err := seatbelt.Render(p, tc.protected)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Render error = %v, want one containing %q", name, err, tc.want)
		}
	}
}

// A rule without filters matches every path, so an empty list must produce
// no rule at all rather than "(deny file-read* file-write*)".
func TestRenderEmptyListsWriteNoRule(t *testing.T) {
	prof, err := seatbelt.Render(&policy.Policy{Network: policy.NetworkDeny}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := checkProfile(prof)
	if err != nil {
		t.Fatal(err)
	}
	for _, section := range []string{"writable roots", "protected paths", "ancestors", "hidden paths"} {
		if strings.Contains(prof.Text, "--- "+section) {
			t.Errorf("empty policy renders a %s section:\n%s", section, prof.Text)
		}
	}
	if len(prof.Params) != 0 {
		t.Errorf("Params = %v, want none", prof.Params)
	}
	if allow, _ := sp.decide(request{op: "file-read-data", path: "/private/etc/hosts"}); !allow {
		t.Errorf("reads denied in a profile with nothing hidden")
	}
	if allow, _ := sp.decide(request{op: "file-write-create", path: "/private/tmp/x"}); allow {
		t.Errorf("writes allowed in a profile with no writable root")
	}
}

// The parameter list is exactly what the policy implies: roots, protected
// paths (+ written forms), ancestors inside roots, hidden paths (+ written
// forms), each once.
func TestRenderParams(t *testing.T) {
	c := findCase("non-canonical")
	prof, err := seatbelt.Render(c.policy, c.protected)
	if err != nil {
		t.Fatal(err)
	}
	want := []seatbelt.Param{
		{"WRITABLE_ROOT_0", "/private/tmp/proj"},
		{"WRITABLE_ROOT_1", "/private/var/folders/zz/abc123/T"},
		{"WRITABLE_ROOT_2", "/private/tmp"},
		{"PROTECTED_0", "/private/tmp/proj/.git/hooks"},
		{"PROTECTED_1", "/tmp/proj/.git/hooks"},
		{"PROTECTED_2", "/private/tmp/proj/.git/config"},
		{"PROTECTED_3", "/tmp/proj/.git/config"},
		{"ANCESTOR_0", "/private/tmp/proj"},
		{"ANCESTOR_1", "/private/tmp"},
		{"ANCESTOR_2", "/private/tmp/proj/.git"},
		{"HIDDEN_0", "/private/etc/ssl/private"},
		{"HIDDEN_1", "/etc/ssl/private"},
		{"HIDDEN_2", "/private/tmp/proj/.env"},
		{"HIDDEN_3", "/tmp/proj/.env"},
	}
	if diff := cmp.Diff(want, prof.Params); diff != "" {
		t.Errorf("Render(non-canonical) params mismatch (-want +got):\n%s", diff)
	}
}
