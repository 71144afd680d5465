package main

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"

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

// policyFlags are the flags every policy-taking command shares. Path lists
// also come from ZSANDBOX_WRITABLE / ZSANDBOX_HIDE (":"-separated, like
// PATH); they are read in request, not by the flag library, which would
// split on commas.
func policyFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cwd", Usage: "run the command in `DIR` (default: the current directory)", EnvVars: []string{"ZSANDBOX_CWD"}},
		&cli.StringSliceFlag{Name: "writable", Usage: "also allow writes under `PATH` (repeatable; env ZSANDBOX_WRITABLE, \":\"-separated)"},
		&cli.StringSliceFlag{Name: "hide", Usage: "also hide `PATH` from the command (repeatable; env ZSANDBOX_HIDE, \":\"-separated)"},
		&cli.StringFlag{Name: "network", Usage: "`allow` or deny network access", Value: "deny", EnvVars: []string{"ZSANDBOX_NETWORK"}},
		&cli.StringSliceFlag{Name: "env", Usage: "set `KEY=VALUE` in the command's environment (repeatable)"},
		&cli.StringSliceFlag{Name: "pass-env", Usage: "pass variable `NAME` even if it looks like a credential (repeatable; env ZSANDBOX_PASS_ENV, \",\"-separated)"},
	}
}

func runExec(c *cli.Context) error {
	argv := c.Args().Slice()
	if len(argv) == 0 {
		return usageErrorf("no command given: zsandbox exec [flags] -- COMMAND [ARG...]")
	}
	host, err := hostFacts()
	if err != nil {
		return sandboxError(err.Error())
	}
	p, err := policy.Resolve(request(c, host), host)
	if err != nil {
		return err
	}
	return execute(p, argv)
}

// request gathers the policy flags and their environment variables.
func request(c *cli.Context, host policy.Host) policy.Request {
	req := policy.Request{
		Cwd:     c.String("cwd"),
		Hide:    append(splitList(host.Getenv("ZSANDBOX_HIDE"), ":"), c.StringSlice("hide")...),
		Network: c.String("network"),
		SetEnv:  c.StringSlice("env"),
		PassEnv: append(splitList(host.Getenv("ZSANDBOX_PASS_ENV"), ","), c.StringSlice("pass-env")...),
	}
	for _, w := range splitList(host.Getenv("ZSANDBOX_WRITABLE"), ":") {
		req.Writable = append(req.Writable, policy.Path{Path: w, Source: policy.SourceEnv})
	}
	for _, w := range c.StringSlice("writable") {
		req.Writable = append(req.Writable, policy.Path{Path: w, Source: policy.SourceFlag})
	}
	return req
}

func splitList(s, sep string) []string {
	var out []string
	for _, f := range strings.Split(s, sep) {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
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
	return policy.Host{Cwd: cwd, Home: home, Env: os.Environ()}, nil
}
