package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/plan"
	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/sandbox"
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

// hostFacts reads the caller's cwd, home, ids and environment, once. The
// cwd is the kernel's (getcwd), never $PWD: a $PWD through a symlink
// would let a planted link decide the writable roots.
func hostFacts() (policy.Host, error) {
	cwd, err := syscall.Getwd()
	if err != nil {
		return policy.Host{}, cwdError(err)
	}
	account := accountHome()
	home := os.Getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		home = account
	}
	here, err := os.Stat(".")
	if err != nil {
		return policy.Host{}, cwdError(err)
	}
	return policy.Host{Cwd: cwd, CwdInfo: here, Home: home, AccountHome: account, SudoHome: sudoHome(), Env: os.Environ(),
		Uid: os.Geteuid(), Gid: os.Getegid(), Overflow: overflowUID(), Exe: selfExe()}, nil
}

// selfExe is zsandbox's own binary, symlink-free ("" when unknown).
var selfExe = func() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	if c, err := filepath.EvalSymlinks(p); err == nil {
		return c
	}
	return p
}

// sudoHome is the home directory of the user who ran sudo (SUDO_UID), when
// that is not the caller; "" otherwise. Trusting the variable can only
// hide more.
func sudoHome() string {
	uid := os.Getenv("SUDO_UID")
	if uid == "" || uid == strconv.Itoa(os.Getuid()) {
		return ""
	}
	u, err := user.LookupId(uid)
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		return ""
	}
	return u.HomeDir
}

// accountHome is the home directory of the caller's uid in the password
// database ("" when there is no entry). The static Linux build reads
// /etc/passwd in Go (osusergo); macOS asks the directory service through
// libSystem; neither needs cgo. A variable so tests can fix it.
var accountHome = func() string {
	u, err := user.LookupId(strconv.Itoa(os.Getuid()))
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		return ""
	}
	return u.HomeDir
}

// cwdError explains a working directory zsandbox cannot start from: bad
// input (exit 2), not a sandbox that failed.
func cwdError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return exit.Usagef("the current directory no longer exists (it was deleted): cd to an existing directory and run again")
	case errors.Is(err, fs.ErrPermission):
		return exit.Usagef("the current directory cannot be entered (permission denied): the command could not run in it; make it searchable (chmod u+x) or run from another directory")
	}
	return exit.Sandbox("the current directory: " + err.Error())
}

func runExec(c *cli.Context) error {
	argv := c.Args().Slice()
	if len(argv) == 0 {
		return exit.Usagef("no command given: zsandbox exec [flags] -- COMMAND [ARG...]")
	}
	p, rc, err := resolve(c)
	if err != nil {
		return err
	}
	pl := plan.Render(p, argv, rc.Options)
	for _, w := range pl.Warnings {
		fmt.Fprintf(os.Stderr, "zsandbox: warning: %s\n", w)
	}
	return sandbox.Exec(pl, rc.hints)
}
