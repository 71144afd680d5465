package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/zsandbox/zsandbox/exit"
)

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: `Examples:
   source <(zsandbox completion bash)
   zsandbox completion zsh > "${fpath[1]}/_zsandbox"
   zsandbox completion fish > ~/.config/fish/completions/zsandbox.fish`,
		OnUsageError: onUsageError,
		Action:       runCompletion,
	}
}

func runCompletion(c *cli.Context) error {
	words := completionWords(c.App)
	switch shell := c.Args().First(); shell {
	case "bash":
		return bashCompletion(c.App.Writer, words)
	case "zsh":
		fmt.Fprintln(c.App.Writer, "#compdef zsandbox\nautoload -U bashcompinit && bashcompinit")
		return bashCompletion(c.App.Writer, words)
	case "fish":
		return fishCompletion(c.App.Writer, words)
	default:
		return exit.Usagef("completion %q: must be bash, zsh or fish", shell)
	}
}

// completionWords maps each command to its flags ("--name").
func completionWords(app *cli.App) map[string][]string {
	out := map[string][]string{}
	for _, cmd := range app.Commands {
		var flags []string
		for _, f := range cmd.Flags {
			flags = append(flags, "--"+f.Names()[0])
		}
		out[cmd.Name] = flags
	}
	return out
}

// bashCompletion writes the bash function: the commands for the first
// word, the command's flags after it, and after "--" the names of
// commands (what exec runs); else files (-o default).
func bashCompletion(w io.Writer, words map[string][]string) error {
	names := sortedKeys(words)
	fmt.Fprintf(w, `_zsandbox() {
  local cur=${COMP_WORDS[COMP_CWORD]} i
  COMPREPLY=()
  for ((i = 2; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} == -- ]]; then
      COMPREPLY=($(compgen -c -- "$cur"))
      return
    fi
  done
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W %q -- "$cur"))
    return
  fi
  case ${COMP_WORDS[1]} in
`, strings.Join(names, " "))
	for _, name := range names {
		fmt.Fprintf(w, "    %s) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", name, strings.Join(words[name], " "))
	}
	fmt.Fprint(w, "  esac\n}\ncomplete -o default -F _zsandbox zsandbox\n")
	return nil
}

func fishCompletion(w io.Writer, words map[string][]string) error {
	names := sortedKeys(words)
	fmt.Fprintf(w, "complete -c zsandbox -f -n __fish_use_subcommand -a %q\n", strings.Join(names, " "))
	for _, name := range names {
		for _, f := range words[name] {
			fmt.Fprintf(w, "complete -c zsandbox -n '__fish_seen_subcommand_from %s' -l %s\n", name, strings.TrimPrefix(f, "--"))
		}
	}
	return nil
}

func sortedKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
