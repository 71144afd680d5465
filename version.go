package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// version and commit are set at build time (scripts/build.sh).
var (
	version = "dev"
	commit  = "unknown"
)

func versionString() string {
	mod := "(unknown module version)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		mod = bi.Main.Path + " " + bi.Main.Version
	}
	return fmt.Sprintf("%s (commit %s, %s, %s, %s/%s)", version, commit, mod, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version, commit and Go version",
		Action: func(c *cli.Context) error {
			fmt.Fprintln(c.App.Writer, "zsandbox", versionString())
			return nil
		},
	}
}
