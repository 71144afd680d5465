package main

import (
	"errors"
	"io/fs"
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
		return policy.Host{}, cwdError(err)
	}
	home := os.Getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		if u, err := user.Current(); err == nil {
			home = u.HomeDir
		}
	}
	here, err := os.Stat(".")
	if err != nil {
		return policy.Host{}, cwdError(err)
	}
	return policy.Host{Cwd: cwd, CwdInfo: here, Home: home, Env: os.Environ()}, nil
}

// cwdError explains a working directory zsandbox cannot start from: bad
// input (exit 2), not a sandbox that failed.
func cwdError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageErrorf("the current directory no longer exists (it was deleted): cd to an existing directory and run again")
	case errors.Is(err, fs.ErrPermission):
		return usageErrorf("the current directory cannot be entered (permission denied): the command could not run in it; make it searchable (chmod u+x) or run from another directory")
	}
	return sandboxError("the current directory: " + err.Error())
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
	return execute(p, argv, rc)
}
