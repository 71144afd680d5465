// Command zsandbox runs one command inside an OS sandbox: it may read the
// machine, write only under a few writable roots, never see credential
// files, and reach no network unless asked. When the sandbox cannot be
// built, nothing runs and zsandbox exits 127 saying why.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seatbelt"
)

func main() {
	if len(os.Args) > 1 {
		// Internal roles of the same binary, before any CLI parsing.
		switch os.Args[1] {
		case landlock.Stage2Arg:
			landlock.Stage2(os.Args[2:])
		case bwrap.GuardArg:
			bwrap.Guard(os.Args[2:])
		case seatbelt.WatchdogArg:
			seatbelt.Watchdog(os.Args[2:])
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
	report(stderr, err)
	return exitCode(err)
}

// unknownCommand runs when no command matched: help without arguments, a
// usage error otherwise.
func unknownCommand(c *cli.Context) error {
	if c.NArg() == 0 {
		return cli.ShowAppHelp(c)
	}
	return usageErrorf("unknown command %q; the commands are exec, explain, doctor, completion and version (zsandbox --help)", c.Args().First())
}

func onUsageError(_ *cli.Context, err error, _ bool) error {
	return usageErrorf("%v", err)
}

// report prints err the way every zsandbox message looks.
func report(w io.Writer, err error) {
	if err == nil {
		return
	}
	var unsafe *policy.UnsafeError
	if errors.As(err, &unsafe) {
		fmt.Fprintf(w, "zsandbox: error: %s; the command did not run\nzsandbox: hint: %s\n", unsafe.Msg, unsafe.Hint)
		return
	}
	if e, ok := err.(*exitError); ok {
		if e.msg != "" {
			fmt.Fprintf(w, "zsandbox: error: %s\n", e.msg)
		}
		for _, h := range e.hints {
			fmt.Fprintf(w, "zsandbox: hint: %s\n", h)
		}
		return
	}
	fmt.Fprintf(w, "zsandbox: error: %v\n", err)
}
