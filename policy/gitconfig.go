package policy

import (
	"path/filepath"
	"strings"
)

// gitConfig holds the few path-valued keys of git config files that
// protection needs: core.hooksPath (the hooks git runs), include.path and
// includeIf.*.path (more config) and core.worktree (where a submodule's
// hooks run).
type gitConfig struct {
	hooksPaths []string // as written, "~/" expanded; relative ones are resolved by the caller
	includes   []string // absolute
	worktree   string
	// worktreeConfig: extensions.worktreeConfig is on, so git reads
	// config.worktree.
	worktreeConfig bool
	// submodulePaths are the submodule.*.path values (of .gitmodules).
	submodulePaths []string
}

// maxConfigSize bounds what is read of one config file; git config files
// are small, and a huge one must not slow every run.
const maxConfigSize = 1 << 20

// readGitConfig reads file and, to git's depth limit, the files it
// includes. A missing or unreadable file is no config.
func readGitConfig(file, home string) gitConfig {
	var c gitConfig
	c.read(file, home, 0)
	return c
}

func (c *gitConfig) read(file, home string, depth int) {
	if depth > 10 {
		return
	}
	b, ok := readSmall(file, maxConfigSize)
	if !ok {
		return
	}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = sectionName(line)
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key, value = strings.ToLower(strings.TrimSpace(key)), configValue(value)
		if value == "" {
			continue
		}
		switch {
		case section == "core" && key == "hookspath":
			c.hooksPaths = append(c.hooksPaths, expandHome(value, home))
		case section == "core" && key == "worktree":
			c.worktree = expandHome(value, home)
		case section == "submodule" && key == "path":
			c.submodulePaths = append(c.submodulePaths, value)
		case section == "extensions" && key == "worktreeconfig":
			c.worktreeConfig = isTrue(value)
		case (section == "include" || section == "includeif") && key == "path":
			inc := absFrom(expandHome(value, home), filepath.Dir(file))
			c.includes = append(c.includes, inc)
			c.read(inc, home, depth+1)
		}
	}
}

// sectionName returns the lower-cased section of a "[section "sub"]" or
// "[section.sub]" header, without its subsection.
func sectionName(line string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(line, "["), "]")
	name, _, _ = strings.Cut(name, " ")
	name, _, _ = strings.Cut(name, ".")
	return strings.ToLower(strings.TrimSpace(name))
}

// configValue decodes a value: double quotes, backslash escapes, and a
// comment ("#" or ";") outside quotes ends it.
func configValue(raw string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(raw); i++ {
		switch ch := raw[i]; {
		case ch == '"':
			quoted = !quoted
		case ch == '\\' && i+1 < len(raw):
			i++
			b.WriteByte(unescape(raw[i]))
		case (ch == '#' || ch == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(ch)
		}
	}
	return strings.TrimSpace(b.String())
}

// unescape is git's meaning of "\" followed by ch.
func unescape(ch byte) byte {
	switch ch {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	}
	return ch
}

// isTrue is git's reading of a boolean value.
func isTrue(v string) bool {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}
