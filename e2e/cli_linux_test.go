package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// explainDoc is the part of explain's JSON the tests read.
type explainDoc struct {
	Schema   int `json:"schema"`
	Writable []struct {
		Path, Source string
	} `json:"writable"`
	Omitted []struct {
		Path, Source, Reason string
	} `json:"omitted"`
	Hide []struct {
		Path   string
		Exists bool
	} `json:"hide"`
	Protected []struct{ Path string }    `json:"protected"`
	Network   string                     `json:"network"`
	Env       struct{ Dropped []string } `json:"env"`
}

func (e *env) explain(t *testing.T, extraEnv []string, args ...string) (explainDoc, result) {
	t.Helper()
	cmd := e.command(e.proj, append([]string{"explain", "--format", "json"}, args...)...)
	cmd.Env = append(cmd.Env, extraEnv...)
	out, err := cmd.Output()
	var doc explainDoc
	if err != nil {
		return doc, result{Code: exitCodeOf(err), Stdout: string(out)}
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("explain JSON does not parse: %v\n%s", err, out)
	}
	return doc, result{Stdout: string(out)}
}

func (d explainDoc) source(path string) string {
	for _, w := range d.Writable {
		if w.Path == path {
			return w.Source
		}
	}
	return ""
}

// TestExplainSources: every writable root says where it came from, and
// precedence is flag > environment > settings; lists add up.
func TestExplainSources(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		fromSettings, fromEnv, fromFlag := filepath.Join(e.base, "s"), filepath.Join(e.base, "v"), filepath.Join(e.base, "f")
		for _, d := range []string{fromSettings, fromEnv, fromFlag} {
			e.mkdir(d)
		}
		settings := filepath.Join(e.home, ".config", "zsandbox", "settings.json")
		e.write(settings, `{"writable": ["`+fromSettings+`"], "network": "allow"}`)
		e.chownAll()
		doc, r := e.explain(t, []string{"ZSANDBOX_WRITABLE=" + fromEnv, "GITHUB_TOKEN=" + e.secret}, "--writable", fromFlag)
		if doc.Schema != 1 {
			t.Fatalf("schema = %d, want 1\n%s", doc.Schema, r)
		}
		for path, want := range map[string]string{e.proj: "cwd", e.tmp: "TMPDIR", "/tmp": "default",
			fromSettings: "settings", fromEnv: "ZSANDBOX_WRITABLE", fromFlag: "--writable"} {
			if got := doc.source(path); got != want {
				t.Errorf("source of %s = %q, want %q", path, got, want)
			}
		}
		if doc.Network != "allow" {
			t.Errorf("network = %q, want allow from settings", doc.Network)
		}
		if !strings.Contains(strings.Join(doc.Env.Dropped, " "), "GITHUB_TOKEN") || strings.Contains(r.Stdout, e.secret) {
			t.Errorf("dropped env names wrong or value printed: %v", doc.Env.Dropped)
		}
		doc, _ = e.explain(t, []string{"ZSANDBOX_NETWORK=deny"})
		if doc.Network != "deny" {
			t.Errorf("environment did not override settings: network = %q", doc.Network)
		}
		doc, _ = e.explain(t, []string{"ZSANDBOX_NETWORK=deny"}, "--network", "allow")
		if doc.Network != "allow" {
			t.Errorf("flag did not override environment: network = %q", doc.Network)
		}
	})
}

// TestExplainWorktreeAndMissingTmpdir: the worktree's common dir is a root,
// a TMPDIR that does not exist is left out with a reason.
func TestExplainWorktreeAndMissingTmpdir(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		gitDir := repo(t, e)
		wt := filepath.Join(e.home, "wt")
		git(t, e.proj, "worktree", "add", "-q", wt)
		os.RemoveAll(e.tmp)
		e.chownAll()
		cmd := e.command(wt, "explain", "--format", "json")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("explain: %v", err)
		}
		var doc explainDoc
		json.Unmarshal(out, &doc)
		if doc.source(gitDir) != "worktree common dir" {
			t.Errorf("common dir %s not a worktree root:\n%s", gitDir, out)
		}
		found := false
		for _, o := range doc.Omitted {
			found = found || (o.Path == e.tmp && o.Source == "TMPDIR" && o.Reason != "")
		}
		if !found {
			t.Errorf("missing TMPDIR not reported as left out:\n%s", out)
		}
	})
}

// TestExplainFormats: text, bwrap and seatbelt print; a bad format is a
// usage error.
func TestExplainFormats(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.run("explain")
		for _, want := range []string{"backend: bwrap", "writable:", e.proj + "  (cwd)", "hide", "network: deny"} {
			if !strings.Contains(r.Stdout, want) {
				t.Errorf("explain text lacks %q:\n%s", want, r.Stdout)
			}
		}
		r = e.run("explain", "--format", "bwrap", "--", "go", "test")
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		if len(lines) < 10 || !strings.HasSuffix(lines[0], "bwrap") || lines[len(lines)-1] != "test" {
			t.Errorf("explain bwrap:\n%s", r.Stdout)
		}
		r = e.run("explain", "--format", "seatbelt")
		if !strings.Contains(r.Stdout, "(deny default") || !strings.Contains(r.Stdout, "-D WRITABLE_ROOT_0=") {
			t.Errorf("explain seatbelt:\n%s", r.Stdout)
		}
		if r := e.run("explain", "--format", "yaml"); r.Code != 2 || !strings.HasPrefix(r.Stderr, "zsandbox: error: --format") {
			t.Errorf("bad format: %s", r)
		}
	})
}

// TestMalformedSettings: each kind of mistake is a usage error naming the
// file and the key.
func TestMalformedSettings(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		file := filepath.Join(e.base, "bad.json")
		cases := map[string]string{
			`{"writable": "/x"}`:          `key "writable": want a list of strings`,
			`{"network": 1}`:              `key "network": want a string`,
			`{"writeable": ["/x"]}`:       `unknown key "writeable"`,
			`{"writable": [`:              `not a JSON object`,
			`{"network": "maybe"}`:        `--network "maybe"`,
			`{"hint": "loud"}`:            `--hint "loud"`,
			`{"allowUnixSockets": "yes"}`: `key "allowUnixSockets": want a boolean`,
		}
		for content, want := range cases {
			e.write(file, content)
			r := e.run("exec", "--settings", file, "--", "true")
			if r.Code != 2 || !strings.Contains(r.Stderr, want) || !strings.HasPrefix(r.Stderr, "zsandbox: error: ") {
				t.Errorf("settings %s: want exit 2 with %q\n%s", content, want, r)
			}
			if !strings.Contains(content, "maybe") && !strings.Contains(content, "loud") && !strings.Contains(r.Stderr, file) {
				t.Errorf("settings %s: error does not name the file\n%s", content, r)
			}
		}
	})
}

// TestCompletionAndVersion: the scripts are produced and parse.
func TestCompletionAndVersion(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, shell := range []string{"bash", "zsh", "fish"} {
			r := e.run("completion", shell)
			if r.Code != 0 || !strings.Contains(r.Stdout, "zsandbox") || !strings.Contains(r.Stdout, "writable") {
				t.Errorf("completion %s:\n%s", shell, r)
			}
		}
		if r := e.run("version"); r.Code != 0 || !strings.Contains(r.Stdout, "go1.") {
			t.Errorf("version:\n%s", r)
		}
	})
}

// TestTooManyRoots: past bubblewrap's argument limit the policy cannot run;
// that is a clear usage error, not bwrap's failure.
func TestTooManyRoots(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		args := []string{"exec"}
		for i := 0; i < 2300; i++ {
			d := filepath.Join(e.base, "many", strconv.Itoa(i))
			e.mkdir(d)
			args = append(args, "--writable", d)
		}
		e.chownAll()
		r := e.run(append(args, "--", "true")...)
		if r.Code != 2 || !strings.Contains(r.Stderr, "more than bubblewrap accepts") {
			t.Errorf("2,300 writable roots: want exit 2 naming the limit\n%.600s", r)
		}
	})
}
