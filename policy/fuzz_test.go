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

// FuzzHiddenFromEnv: whatever a variable that moves a store holds, hiding
// neither fails nor hides "/" or a kernel tree, and every path is absolute
// and clean.
func FuzzHiddenFromEnv(f *testing.F) {
	for _, s := range []string{"/", "", "rel/x", "~", "~bob/x", "/dev/fd/63", "/proc/self/fd/3",
		"a::b:", "/x/../..", "../../..", "/sys", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if strings.ContainsRune(v, 0) {
			return // not a possible environment value
		}
		host := Host{Env: []string{"GNUPGHOME=" + v, "KUBECONFIG=" + v, "XDG_CONFIG_HOME=" + v}}
		hidden, _, err := resolveHidden(nil, host, "/home/u", "/work", newSymlinks())
		if err != nil {
			t.Fatalf("value %q: %v", v, err)
		}
		for _, h := range hidden {
			if h.Path == "/" || kernelTree(h.Path) != "" || !filepath.IsAbs(h.Path) || filepath.Clean(h.Path) != h.Path {
				t.Fatalf("value %q hid %q", v, h.Path)
			}
		}
	})
}
