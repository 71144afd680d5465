// Command zsandbox runs one command inside an OS sandbox: it may read the
// machine, write only under a few writable roots, never see credential
// files, and reach no network unless asked. When the sandbox cannot be
// built, nothing runs and zsandbox exits 127 saying why.
package main

import (
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/zsandbox/zsandbox/alone"
	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/netns"
	"github.com/zsandbox/zsandbox/seatbelt"
)

func main() {
	if len(os.Args) > 1 {
		// Internal roles of the same binary, before any CLI parsing.
		switch os.Args[1] {
		case landlock.Stage2Arg:
			exit.Exit(landlock.Stage2(os.Args[2:]))
		case alone.Arg:
			exit.Exit(alone.Child(os.Args[2:]))
		case bwrap.GuardArg:
			bwrap.Guard(os.Args[2:])
		case seatbelt.WatchdogArg:
			seatbelt.Watchdog(os.Args[2:])
		case netns.RoleArg:
			netns.Role(os.Args[2:])
		}
	}
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run executes the CLI and returns the process exit status.
func run(args []string, stdout, stderr io.Writer) int {
	app := &cli.App{
		Name:            "zsandbox",
		Usage:           "run a command inside an OS sandbox",
		Version:         versionString(),
		HideHelpCommand: true,
		Writer:          stdout,
		ErrWriter:       stderr,
		OnUsageError:    onUsageError,
		ExitErrHandler:  func(*cli.Context, error) {}, // run reports errors itself
		Action:          unknownCommand,
		Commands:        []*cli.Command{execCommand(), explainCommand(), doctorCommand(), completionCommand(), versionCommand()},
	}
	err := app.Run(args)
	exit.Print(stderr, err)
	return exit.Code(err)
}

// unknownCommand runs when no command matched: help without arguments, a
// usage error otherwise.
func unknownCommand(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowAppHelp(c)
	}
	return exit.Usagef("unknown command %q; the commands are exec, explain, doctor, completion and version (zsandbox --help)", c.Args().First())
}

func onUsageError(_ *cli.Context, err error, _ bool) error {
	return exit.Usagef("%v", err)
}
