package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/plan"
)

func explainCommand() *cli.Command {
	return &cli.Command{
		Name:      "explain",
		Usage:     "print what a command would be allowed to do; runs nothing",
		ArgsUsage: "[-- COMMAND [ARG...]]",
		Description: `Examples:
   zsandbox explain
   zsandbox explain --writable ~/.cache/go-build --format json
   zsandbox explain --format bwrap -- go test ./...`,
		Flags: append(policyFlags(), &cli.StringFlag{
			Name: "format", Value: "text", Usage: "`text`, json, bwrap or seatbelt",
		}),
		OnUsageError: onUsageError,
		Action:       runExplain,
	}
}

func runExplain(c *cli.Context) error {
	argv := c.Args().Slice()
	if len(argv) == 0 {
		argv = []string{"COMMAND"}
	}
	p, rc, err := resolve(c)
	if err != nil {
		return err
	}
	rc.Explain = true
	pl := plan.Render(p, argv, rc.Options)
	w := c.App.Writer
	switch f := c.String("format"); f {
	case "text":
		pl.Text(w)
	case "json":
		return pl.JSON(w)
	case "bwrap":
		bin, err := bwrap.Find(os.Getenv("PATH"), p.SystemBinary)
		if err != nil {
			bin = bwrap.SystemPath
		}
		pl.BwrapText(w, bin)
	case "seatbelt":
		if err := pl.SeatbeltText(w); err != nil {
			return exit.Sandbox(err.Error())
		}
	default:
		return exit.Usagef("--format %q: must be text, json, bwrap or seatbelt", f)
	}
	return nil
}
