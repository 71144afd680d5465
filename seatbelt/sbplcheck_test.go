package seatbelt_test

import (
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/seatbelt"
)

// The checker must itself reject what Seatbelt would refuse or what the
// renderer must never emit; otherwise every other test here proves nothing.
func TestCheckerRejects(t *testing.T) {
	params := []seatbelt.Param{{"WRITABLE_ROOT_0", "/w"}}
	ok := "(version 1)\n(deny default)\n(allow file-write* (subpath (param \"WRITABLE_ROOT_0\")))\n"
	if _, err := checkProfile(seatbelt.Profile{Text: ok, Params: params}); err != nil {
		t.Fatalf("checkProfile rejects a valid profile: %v", err)
	}
	for name, tc := range map[string]struct {
		text   string
		params []seatbelt.Param
		want   string
	}{
		"unbalanced open":     {text: "(version 1)\n(deny default", want: "unbalanced ("},
		"unbalanced close":    {text: "(version 1))", want: "unbalanced )"},
		"no version":          {text: "(deny default)", want: "(version 1)"},
		"version 2":           {text: "(version 2)\n(deny default)", want: "(version 1)"},
		"allow default first": {text: "(version 1)\n(allow default)", want: "(deny default)"},
		"no default":          {text: "(version 1)\n(allow file-read*)", want: "(deny default)"},
		"unknown operation":   {text: "(version 1)\n(deny default)\n(allow file-write-evil)", want: `unknown operation "file-write-evil"`},
		"unknown filter":      {text: "(version 1)\n(deny default)\n(allow file-read* (vnode-type REGULAR-FILE))", want: `unknown filter "vnode-type"`},
		"filter for wrong op": {text: "(version 1)\n(deny default)\n(allow mach-lookup (subpath \"/dev/null\"))", want: "does not apply to mach-lookup"},
		"raw path":            {text: "(version 1)\n(deny default)\n(allow file-write* (subpath \"/Users/u\"))", want: `subpath "/Users/u" is not an allowed constant`},
		"raw path in literal": {text: "(version 1)\n(deny default)\n(allow file-write* (literal \"/etc/passwd\"))", want: "not an allowed constant"},
		"unlisted service":    {text: "(version 1)\n(deny default)\n(allow mach-lookup (global-name \"com.apple.SecurityServer\"))", want: "not an allowed constant"},
		"unbound param":       {text: "(version 1)\n(deny default)\n(allow file-write* (subpath (param \"HIDDEN_0\")))", want: `"HIDDEN_0" has no -D value`},
		"unused param":        {text: "(version 1)\n(deny default)", params: params, want: "never used"},
		"duplicate param":     {text: ok, params: append(params, params...), want: "given twice"},
		"relative param":      {text: ok, params: []seatbelt.Param{{"WRITABLE_ROOT_0", "w"}}, want: "not an absolute path"},
		"param name":          {text: ok, params: []seatbelt.Param{{"root", "/w"}}, want: "is not NAME_i"},
		"define":              {text: "(version 1)\n(define x 1)", want: "only (allow ...) and (deny ...)"},
		"quote":               {text: "(version 1)\n(deny default)\n'x", want: "unexpected '\\''"},
		"boolean":             {text: "(version 1)\n(deny default)\n(allow file-read* #t)", want: "unexpected '#'"},
		"bad regex":           {text: "(version 1)\n(deny default)\n(allow file-read* (regex #\"^/dev/(\"))", want: "regex"},
		"regex as string":     {text: "(version 1)\n(deny default)\n(allow file-read* (regex \"^/dev/fd/[0-9]+$\"))", want: "wrong argument type"},
		"open string":         {text: "(version 1)\n(deny default \"x)", want: "string never closed"},
		"other modifier":      {text: "(version 1)\n(deny default (with send-signal SIGKILL))", want: "only (with message"},
		"filter after with":   {text: "(version 1)\n(deny default)\n(deny file-read* (with message \"z\") (literal \"/dev/null\"))", want: "follows (with message"},
		"default with filter": {text: "(version 1)\n(deny default (literal \"/dev/null\"))", want: "does not apply to default"},
		"no operation":        {text: "(version 1)\n(deny default)\n(allow (literal \"/dev/null\"))", want: "names no operation"},
		"require-not arity":   {text: "(version 1)\n(deny default)\n(allow file-read* (require-not (literal \"/dev/null\") (literal \"/dev/zero\")))", want: "wrong number"},
		"param in regex":      {text: ok + "(allow file-read* (regex (param \"WRITABLE_ROOT_0\")))", params: params, want: "cannot take"},
		"param for mach":      {text: ok + "(allow mach-lookup (global-name (param \"WRITABLE_ROOT_0\")))", params: params, want: "cannot take"},
	} {
		_, err := checkProfile(seatbelt.Profile{Text: tc.text, Params: tc.params})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: checkProfile error = %v, want one containing %q", name, err, tc.want)
		}
	}
}

func TestCheckerParsesEscapesAndComments(t *testing.T) {
	forms, err := parseSBPL("; a comment (with parens\n(a \"q\\\"uote\\\\ \\n\" #\"re\" sym-1*) ; trailing\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(forms) != 1 || len(forms[0].items) != 4 {
		t.Fatalf("parsed %d forms: %v", len(forms), forms)
	}
	if got := forms[0].items[1].text; got != "q\"uote\\ \n" {
		t.Errorf("string = %q", got)
	}
	if forms[0].items[2].kind != nRegex || forms[0].items[3].text != "sym-1*" {
		t.Errorf("regex/symbol parsed wrong: %s", show(forms[0]))
	}
}

// Seatbelt's last-match-wins order is what makes hidden beat writable: the
// same rules in the other order must give the other answer, or the
// evaluator is not modelling order at all.
func TestCheckerOrderMatters(t *testing.T) {
	params := []seatbelt.Param{{"WRITABLE_ROOT_0", "/Users/u"}, {"HIDDEN_0", "/Users/u/.ssh"}}
	allowW := "(allow file-write* (subpath (param \"WRITABLE_ROOT_0\")))\n"
	denyH := "(deny file-read* file-write* (subpath (param \"HIDDEN_0\")))\n"
	req := request{op: "file-write-create", path: "/Users/u/.ssh/authorized_keys"}
	for text, want := range map[string]bool{
		"(version 1)\n(deny default)\n" + allowW + denyH: false,
		"(version 1)\n(deny default)\n" + denyH + allowW: true,
	} {
		sp, err := checkProfile(seatbelt.Profile{Text: text, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := sp.decide(req); got != want {
			t.Errorf("profile\n%s allows %v = %v, want %v", text, req, got, want)
		}
	}
}

func TestCheckerFilters(t *testing.T) {
	params := []seatbelt.Param{
		{"WRITABLE_ROOT_0", "/repo"}, {"HIDDEN_0", "/repo/a"}, {"PROTECTED_0", "/repo/b"},
		{"ANCESTOR_0", "/repo/b/keep"}, {"ANCESTOR_1", "/dev/stdout"},
	}
	text := `(version 1)
(deny default)
(allow file-write* (subpath (param "WRITABLE_ROOT_0")))
(deny file-write*
  (require-all
    (subpath (param "WRITABLE_ROOT_0"))
    (require-not (literal (param "ANCESTOR_0")))
    (require-any (literal (param "HIDDEN_0")) (subpath (param "PROTECTED_0")))))
(allow file-write* (prefix (param "ANCESTOR_1")))
`
	sp, err := checkProfile(seatbelt.Profile{Text: text, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"/repo":          true,
		"/repo/x":        true,
		"/repo/a":        false, // require-any: literal
		"/repo/a/x":      true,  // a literal is not a subpath
		"/repo/b":        false, // require-any: subpath, the path itself
		"/repo/b/x":      false,
		"/repo/b/keep":   true, // require-not
		"/repo/bb":       true, // subpath compares whole components
		"/repo-evil":     false,
		"/repox/y":       false,
		"/dev/stdoutx":   true, // prefix is a string prefix, not a component one
		"/dev/stdou":     false,
		"/usr/bin/false": false,
	} {
		if got, _ := sp.decide(request{op: "file-write-data", path: path}); got != want {
			t.Errorf("write %q allowed = %v, want %v", path, got, want)
		}
	}
}
