package main

import (
	"os"
	"os/user"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/zsandbox/zsandbox/policy"
)

func execCommand() *cli.Command {
	return &cli.Command{
		Name:      "exec",
		Usage:     "run COMMAND inside the sandbox",
		ArgsUsage: "-- COMMAND [ARG...]",
		Description: `Examples:
   zsandbox exec -- go test ./...
   zsandbox exec --writable ~/.cache/go-build --network deny -- go build ./...
   zsandbox exec --network allow --pass-env GITHUB_TOKEN -- gh pr list`,
		Flags:        policyFlags(),
		OnUsageError: onUsageError,
		Action:       runExec,
	}
}

// hostFacts reads the caller's cwd, home and environment, once.
func hostFacts() (policy.Host, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return policy.Host{}, err
	}
	home := os.Getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		if u, err := user.Current(); err == nil {
			home = u.HomeDir
		}
	}
	here, err := os.Stat(".")
	if err != nil {
		return policy.Host{}, err
	}
	return policy.Host{Cwd: cwd, CwdInfo: here, Home: home, Env: os.Environ()}, nil
}

func runExec(c *cli.Context) error {
	argv := c.Args().Slice()
	if len(argv) == 0 {
		return usageErrorf("no command given: zsandbox exec [flags] -- COMMAND [ARG...]")
	}
	p, rc, err := resolve(c)
	if err != nil {
		return err
	}
	warnUnixSockets(p, rc)
	return execute(p, argv, rc)
}
