package policy

import (
	"path/filepath"
	"strings"

	"github.com/zsandbox/zsandbox/profiles"
)

// SourceAccountHome marks a hidden path under the account's home from the
// password database (or the sudo user's, Host.SudoHome), when it differs
// from $HOME.
const SourceAccountHome Source = "account home"

// candidate is a default hidden path before symlinks are resolved.
type candidate struct {
	path   string
	source Source // "" for the caller's home
}

// xdgTwins are the home directories a variable moves, with the variable:
// a default under ~/.config is also hidden under $XDG_CONFIG_HOME.
var xdgTwins = []struct{ prefix, name string }{
	{".config/", "XDG_CONFIG_HOME"},
	{".local/share/", "XDG_DATA_HOME"},
	{".local/state/", "XDG_STATE_HOME"},
}

// defaultCandidates expands the shipped credential list (profiles/hidden.txt,
// whose header gives the syntax) on host: "~/" entries under home and under
// the account's home, "$NAME" entries from the host environment. Relative
// values resolve against cwd, the command's working directory.
func defaultCandidates(host Host, home string, accountHomes []string, cwd string) []candidate {
	var out []candidate
	for _, e := range profiles.Hidden() {
		rel, ok := strings.CutPrefix(e, "~/")
		if !ok {
			out = append(out, envCandidates(e, host, home, cwd)...)
			continue
		}
		out = append(out, candidate{path: filepath.Join(home, rel)})
		for _, a := range accountHomes {
			if a != home {
				out = append(out, candidate{path: filepath.Join(a, rel), source: SourceAccountHome})
			}
		}
		for _, x := range xdgTwins {
			if rest, ok := strings.CutPrefix(rel, x.prefix); ok {
				out = append(out, envCandidates("$"+x.name+"/"+rest, host, home, cwd)...)
			}
		}
	}
	return out
}

// envCandidates expands one "$NAME[/PATH]" or "$NAME[:]" entry. An unset
// or empty variable, and a value Expand refuses (~user), give nothing: the
// variable moves no store there.
func envCandidates(entry string, host Host, home, cwd string) []candidate {
	name, rest, _ := strings.Cut(strings.TrimPrefix(entry, "$"), "/")
	name, list := strings.CutSuffix(name, "[:]")
	values := []string{host.Getenv(name)}
	if list {
		values = strings.Split(values[0], ":")
	}
	var out []candidate
	for _, v := range values {
		if v == "" {
			continue
		}
		abs, err := Expand(v, home, cwd)
		if err != nil {
			continue
		}
		out = append(out, candidate{path: filepath.Join(abs, rest), source: Source("$" + name)})
	}
	return out
}
