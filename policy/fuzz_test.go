package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseSettings: no input panics; every rejection is a usage error that
// names the file (the CLI prints it after "zsandbox: error: ").
func FuzzParseSettings(f *testing.F) {
	for _, s := range []string{`{}`, `{"writable": ["~/x"]}`, `{"network": 1}`, `{"hide": [null]}`, `[`, `{"a": 1}`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseSettings(data, "/s.json")
		if err == nil {
			return
		}
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), `settings "/s.json": `) {
			t.Fatalf("ParseSettings error %q is not a usage error naming the file", err)
		}
	})
}

// FuzzExpand: any path either fails cleanly or comes back absolute and clean.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"~", "~/a", "a/../../b", "/x//y/", "~bob", "", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := Expand(p, "/home/u", "/work")
		if err != nil {
			return
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("Expand(%q) = %q, not absolute and clean", p, got)
		}
	})
}

// FuzzReadGitConfig: no config text panics the reader, every include it
// follows is absolute, and a self-include ends (git's depth limit).
func FuzzReadGitConfig(f *testing.F) {
	for _, s := range []string{"[core]\n\thooksPath = .husky/_\n", "[include]\npath = config\n", "[core \"x\"]\nworktree = \"a\\\"b\" ; c\n",
		"[extensions]\n\tworktreeConfig = yes\n", "=\n[\n\\", "[includeIf \"gitdir:/x/\"]\n\tpath = ~/inc\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		file := filepath.Join(dir, "config")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c := readGitConfig(file, "/home/u")
		for _, inc := range c.includes {
			if !filepath.IsAbs(inc) {
				t.Fatalf("include %q is not absolute", inc)
			}
		}
	})
}
