package policy

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/zsandbox/zsandbox/profiles"
)

// maxGitDirs bounds the git directories examined for one policy (the
// repositories, their submodules and nested submodules, the linked
// worktrees of each), so a repository with a thousand submodules cannot
// make every run slow. More is refused, never cut short: .git/modules and
// .git/worktrees are writable, and a command that filled them with fakes
// sorting first would push the real ones out of the next run's protection.
const maxGitDirs = 256

// tooManyGitDirs refuses a repository with more git directories in where
// than maxGitDirs.
func tooManyGitDirs(where string) error {
	return &UnsafeError{
		Msg: fmt.Sprintf("more than %d git directories (repositories, submodules, linked worktrees) in %q: zsandbox protects each one git may run code from, and will not protect only some (a command could have added fakes to push the real ones out)",
			maxGitDirs, where),
		Hint: fmt.Sprintf("look at %s: remove what is no longer used (git worktree prune; the .git/modules/NAME of a removed submodule) or what you did not make, then run again", where),
	}
}

// gitDir is one git directory whose files git runs, with the work tree
// its hooks run in ("" when not known from the layout).
type gitDir struct {
	dir, workTree string
	source        Source
	bare          bool
	// common is the directory whose config governs this one (a linked
	// worktree's common dir); "" means dir itself.
	common string
}

// gitCandidates returns git's files in every git directory zsandbox knows
// of: the repository around the cwd, every writable root that is a
// repository or a bare repository, and their submodules (.git/modules,
// one readdir per level); the effective hooks directory when
// core.hooksPath names one, and the files config includes. It also
// returns the work-tree tops, which hold project config.
func (p *Policy) gitCandidates(host Host) ([]protectable, []string, error) {
	var dirs []gitDir
	var out []protectable
	var tops []string
	addLayout := func(l GitLayout) {
		dirs = append(dirs, gitDir{l.CommonDir, l.WorkTree, SourceGit, false, ""})
		if l.GitDir != l.CommonDir {
			dirs = append(dirs, gitDir{l.GitDir, l.WorkTree, SourceGit, false, l.CommonDir})
		}
		for _, f := range l.AdminFiles() {
			out = append(out, protectable{path: f, source: SourceGit,
				why: "the worktree's .git file and its back-pointers: they name the git directory git takes config and hooks from"})
		}
		tops = append(tops, l.WorkTree)
	}
	if l, _, ok := p.trust.gitAround(p.Cwd); ok {
		addLayout(l)
	}
	for _, r := range p.Writable {
		if r.Source == SourceTmpDir || r.Source == SourceDefault || !p.trust.guardsTop(r.Path) {
			// A shared root's .git (any run could have made it, and a
			// symlink in it would make every later run refuse), or
			// another user's: it counts for nothing.
			continue
		}
		if l, ok := readGit(r.Path); ok {
			addLayout(l)
		} else if isGitDir(r.Path) {
			// A bare repository (the cwd, or a --writable): its hooks/
			// and config are at the top.
			dirs = append(dirs, gitDir{r.Path, "", SourceGit, true, ""})
		}
	}
	global := globalGitConfig(p.Home, host)
	for _, f := range global.includes {
		out = append(out, protectable{path: f, source: SourceGitInclude, why: "a file git's global config includes: config that runs programs"})
	}
	seen := map[string]bool{}
	for i := 0; i < len(dirs); i++ {
		if i >= maxGitDirs {
			return nil, nil, tooManyGitDirs(dirs[0].dir)
		}
		d := dirs[i]
		if seen[d.dir] {
			continue
		}
		seen[d.dir] = true
		cands, workTree := gitDirCandidates(d, global.hooksPaths, p.Home)
		out = append(out, cands...)
		if d.common == "" {
			admin, err := worktreeAdminCandidates(d.dir, p.Home)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, admin...)
		}
		subs, err := submoduleDirs(d.dir)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range subs {
			dirs = append(dirs, gitDir{m, "", SourceSubmodule, false, ""})
		}
		embedded, gitfiles := gitmodulesRepos(workTree, p.Home)
		dirs = append(dirs, embedded...)
		out = append(out, gitfiles...)
	}
	return out, tops, nil
}

// gitDirCandidates puts the git list (profiles/protected-git.txt) in one
// git directory, and protects what its config names: the hooks directory
// of core.hooksPath (husky's .husky/_, often gitignored so a review misses
// it), the files it includes, and a submodule's .git file in its work tree
// (core.worktree), which a command could replace with a repository of its
// own. Git runs hooks in the work tree top (the git dir when bare), so a
// relative hooksPath is taken from there.
func gitDirCandidates(d gitDir, global []string, home string) ([]protectable, string) {
	local := readGitConfig(filepath.Join(d.dir, "config"), home)
	governing := local
	if d.common != "" {
		governing = readGitConfig(filepath.Join(d.common, "config"), home)
	}
	out := listCandidates(d, governing.worktreeConfig)
	base := d.workTree
	switch {
	case d.bare:
		base = d.dir
	case base == "" && local.worktree != "":
		base = absFrom(local.worktree, d.dir)
		out = append(out, gitfileCandidate(filepath.Join(base, ".git")))
	}
	wt := readGitConfig(filepath.Join(d.dir, "config.worktree"), home)
	for _, hp := range concat3(global, local.hooksPaths, wt.hooksPaths) {
		if base == "" && !filepath.IsAbs(hp) {
			continue
		}
		out = append(out, protectable{path: absFrom(hp, base), dir: true, source: SourceHooksPath,
			why: "the hooks directory core.hooksPath names: git runs the hooks there"})
	}
	for _, f := range append(local.includes, wt.includes...) {
		out = append(out, protectable{path: f, source: SourceGitInclude, why: "a file the repository's git config includes: config that runs programs"})
	}
	if d.bare {
		return out, ""
	}
	return out, base
}

// worktreeAdminCandidates protects, in every linked worktree's admin dir
// under common/worktrees (one readdir), the files git in that worktree
// obeys: commondir (git takes config and hooks from where it points; git
// does not check it), gitdir, and config.worktree. From the main worktree
// they are plain files of the writable .git, and the user's next git in
// the other worktree would run a fake common dir's core.fsmonitor. An
// admin dir a command creates is a new nested repository (README).
func worktreeAdminCandidates(common, home string) ([]protectable, error) {
	dir := filepath.Join(common, "worktrees")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	if len(ents) > maxGitDirs {
		return nil, tooManyGitDirs(dir)
	}
	worktreeConfig := readGitConfig(filepath.Join(common, "config"), home).worktreeConfig
	var out []protectable
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		admin := filepath.Join(common, "worktrees", e.Name())
		why := "a linked worktree's admin file: names the git directory and config git in that worktree takes config and hooks from"
		for _, f := range []string{"commondir", "gitdir"} {
			out = append(out, protectable{path: filepath.Join(admin, f), source: SourceGit, existing: true, why: why})
		}
		out = append(out, protectable{path: filepath.Join(admin, "config.worktree"), source: SourceGit,
			existing: !worktreeConfig, why: "per-worktree config of a linked worktree, read when extensions.worktreeConfig is on"})
	}
	return out, nil
}

// gitfileCandidate protects a submodule's .git file (when it exists),
// which a command could replace with a repository of its own.
func gitfileCandidate(path string) protectable {
	return protectable{path: path, source: SourceSubmodule, existing: true,
		why: "a submodule's .git file: names the git directory git takes its config and hooks from"}
}

// gitmodulesRepos reads the submodule paths of workTree/.gitmodules: a
// submodule whose .git is a directory (an embedded repository, or one
// made before git absorbed submodules into .git/modules) is a git
// directory the superproject's git status runs; one whose .git is a
// file is protected as such.
func gitmodulesRepos(workTree, home string) ([]gitDir, []protectable) {
	if workTree == "" {
		return nil, nil
	}
	var dirs []gitDir
	var files []protectable
	for _, rel := range readGitConfig(filepath.Join(workTree, ".gitmodules"), home).submodulePaths {
		sub := filepath.Join(workTree, rel)
		if !Within(sub, workTree) || sub == workTree {
			continue
		}
		if gd := filepath.Join(sub, ".git"); isGitDir(gd) {
			dirs = append(dirs, gitDir{gd, sub, SourceSubmodule, false, ""})
		} else {
			files = append(files, gitfileCandidate(gd))
		}
	}
	return dirs, files
}

// listCandidates is the git list in d. A missing config.worktree is only
// read when extensions.worktreeConfig is on, which takes the protected
// config to change, so it needs no placeholder otherwise; a missing
// commondir's placeholder holds ".", since git dies on an empty one.
func listCandidates(d gitDir, worktreeConfig bool) []protectable {
	var out []protectable
	for _, e := range profiles.ProtectedInGitDir() {
		c := protectable{path: filepath.Join(d.dir, e.Path), dir: e.Dir, source: d.source, why: e.Why, content: PlaceholderContent(e.Path)}
		switch e.Path {
		case "config.worktree":
			c.existing = !worktreeConfig
		}
		out = append(out, c)
	}
	return out
}

// globalGitConfig reads the config files git reads for every repository:
// the system file, $GIT_CONFIG_GLOBAL or ~/.gitconfig, and
// $XDG_CONFIG_HOME/git/config (or ~/.config/git/config).
func globalGitConfig(home string, host Host) gitConfig {
	files := []string{"/etc/gitconfig", filepath.Join(home, ".gitconfig")}
	if g := host.Getenv("GIT_CONFIG_GLOBAL"); filepath.IsAbs(g) {
		files = append(files, g)
	}
	for _, x := range withEnv(filepath.Join(home, ".config"), host.Getenv("XDG_CONFIG_HOME")) {
		files = append(files, filepath.Join(x, "git", "config"))
	}
	var all gitConfig
	for _, f := range files {
		c := readGitConfig(f, home)
		all.hooksPaths = append(all.hooksPaths, c.hooksPaths...)
		all.includes = append(all.includes, c.includes...)
	}
	return all
}

// submoduleDirs lists the git directories under dir/modules. A submodule
// name may hold slashes, so a directory that is not a git directory is
// looked into, to a small depth; nothing else is read. Every directory
// looked at counts towards maxGitDirs.
func submoduleDirs(dir string) ([]string, error) {
	var out []string
	seen := 0
	var look func(d string, depth int) error
	look = func(d string, depth int) error {
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil
		}
		for _, e := range ents {
			if !e.IsDir() {
				continue
			}
			if seen++; seen > maxGitDirs {
				return tooManyGitDirs(filepath.Join(dir, "modules"))
			}
			sub := filepath.Join(d, e.Name())
			switch {
			case isGitDir(sub):
				out = append(out, sub)
			case depth < 3:
				if err := look(sub, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := look(filepath.Join(dir, "modules"), 0)
	return out, err
}

func absFrom(p, base string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

func concat3(a, b, c []string) []string {
	return append(append(append([]string(nil), a...), b...), c...)
}
