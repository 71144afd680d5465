package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/zsandbox/zsandbox/exit"
)

func doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check whether zsandbox can build its sandbox on this host, and say how to fix what is missing",
		Description: `Exit status 0 when "zsandbox exec" works here with the defaults, 1 when it does not.

Examples:
   zsandbox doctor
   zsandbox doctor --format json`,
		Flags:        []cli.Flag{&cli.StringFlag{Name: "format", Value: "text", Usage: "`text` or json"}},
		OnUsageError: onUsageError,
		Action:       runDoctor,
	}
}

// check is one line of the doctor's report.
type check struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Required checks decide the exit status; the others inform.
	Required bool   `json:"required"`
	Detail   string `json:"detail"`
	Fix      string `json:"fix,omitempty"`
}

func runDoctor(c *cli.Context) error {
	format := c.String("format")
	if format != "text" && format != "json" {
		return exit.Usagef("--format %q: must be text or json", format)
	}
	checks := hostChecks()
	works := true
	for _, ch := range checks {
		works = works && (ch.OK || !ch.Required)
	}
	if format == "json" {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			Schema int     `json:"schema"`
			Works  bool    `json:"works"`
			Checks []check `json:"checks"`
		}{1, works, checks})
	} else {
		printChecks(c.App.Writer, checks, works)
	}
	if !works {
		return &exit.Error{Code: 1}
	}
	return nil
}

func printChecks(w io.Writer, checks []check, works bool) {
	for _, ch := range checks {
		mark := "ok  "
		switch {
		case !ch.OK && ch.Required:
			mark = "FAIL"
		case !ch.OK:
			mark = "note"
		}
		fmt.Fprintf(w, "%s  %s: %s\n", mark, ch.Name, ch.Detail)
		if !ch.OK && ch.Fix != "" {
			fmt.Fprintf(w, "      fix: %s\n", ch.Fix)
		}
	}
	if works {
		fmt.Fprintln(w, "zsandbox exec works on this host")
	} else {
		fmt.Fprintln(w, "zsandbox exec will refuse to run here (exit 127) until the FAIL lines are fixed")
	}
}
