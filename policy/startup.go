package policy

import (
	"path/filepath"
	"strings"

	"github.com/zsandbox/zsandbox/profiles"
)

// homeCandidates expands the home list (profiles/protected-home.txt).
// "$XDG_CONFIG_HOME/" and "$ZDOTDIR/" stand for their defaults (~/.config,
// ~) and, when the caller sets the variable, for its value too: programs
// differ on whether they honour it. "$NAME" is the file NAME names.
func homeCandidates(home string, host Host) []protectable {
	bases := map[string][]string{
		"~/":                {home},
		"$XDG_CONFIG_HOME/": withEnv(filepath.Join(home, ".config"), host.Getenv("XDG_CONFIG_HOME")),
		"$ZDOTDIR/":         withEnv(home, host.Getenv("ZDOTDIR")),
	}
	var out []protectable
	for _, e := range profiles.ProtectedInHome() {
		if name, ok := strings.CutPrefix(e.Path, "$"); ok && !strings.Contains(name, "/") {
			if v := host.Getenv(name); filepath.IsAbs(v) {
				out = append(out, protectable{path: filepath.Clean(v), dir: e.Dir, source: SourceHomeStartup, why: e.Why, content: PlaceholderContent(v)})
			}
			continue
		}
		for prefix, dirs := range bases {
			rel, ok := strings.CutPrefix(e.Path, prefix)
			if !ok {
				continue
			}
			for _, d := range dirs {
				out = append(out, protectable{path: filepath.Join(d, rel), dir: e.Dir, source: SourceHomeStartup, why: e.Why, content: PlaceholderContent(rel)})
			}
		}
	}
	return out
}

// PlaceholderContent is what the placeholder of a missing protected file
// holds: "{}" for JSON (.mcp.json, opencode.json), which a tool inside the
// sandbox reads as no settings where an empty file is a parse error; "."
// for a git dir's commondir, since git dies on an empty one and "." points
// it at its own git directory, which is what no commondir means.
func PlaceholderContent(name string) string {
	switch {
	case strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonc"):
		return "{}"
	case filepath.Base(name) == "commondir":
		return ".\n"
	}
	return ""
}

// withEnv is def, plus the variable's value when it is an absolute path.
func withEnv(def, value string) []string {
	if filepath.IsAbs(value) && filepath.Clean(value) != def {
		return []string{def, filepath.Clean(value)}
	}
	return []string{def}
}

// projectCandidates puts the project list (profiles/protected-project.txt)
// at each project top.
func projectCandidates(tops []string) []protectable {
	var out []protectable
	for _, top := range tops {
		for _, e := range profiles.ProtectedInProject() {
			out = append(out, protectable{path: filepath.Join(top, e.Path), dir: e.Dir, source: SourceProject, why: e.Why, content: PlaceholderContent(e.Path)})
		}
	}
	return out
}

// pathCandidates protects the absolute directories of the caller's PATH: a
// program planted there replaces a system one in the next shell. Those
// inside the cwd stay writable (a project's node_modules/.bin or bin/ is
// the project's own, like its Makefile), unless the cwd is home itself.
func pathCandidates(path, home, cwd string) []protectable {
	var out []protectable
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			// "" and "." (or any relative entry) name the directory a
			// later lookup starts in: the cwd, for the agent's next call.
			out = append(out, selfNames(filepath.Join(cwd, d))...)
			continue
		}
		d = filepath.Clean(d)
		if cwd != home && Within(d, cwd) {
			// A project's own bin directories stay writable
			// (node_modules/.bin), but not under zsandbox's own names:
			// a zsandbox planted there would run, unsandboxed, the
			// next time the agent calls it by name.
			out = append(out, selfNames(d)...)
			continue
		}
		out = append(out, protectable{path: d, dir: true, source: SourcePathDir,
			why: "a directory on your PATH: a program planted here runs instead of the real one"})
	}
	return out
}

// selfNames protects zsandbox's and zctx's names in a PATH directory.
func selfNames(dir string) []protectable {
	var out []protectable
	for _, name := range []string{"zsandbox", "zctx"} {
		out = append(out, protectable{path: filepath.Join(dir, name), source: SourcePathDir,
			why: "zsandbox's own name in a directory on your PATH: a program planted here would run, unsandboxed, instead of zsandbox"})
	}
	return out
}
