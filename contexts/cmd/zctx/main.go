// Command zctx runs commands in an execution context from any language or
// CI job: one shot (run), or a handle that outlives zctx (spawn, exec, cp,
// ls, destroy). The command's exit status is zctx's; zctx's own failures
// are `zctx: error:` lines with exit 2 (usage) or 127 (nothing ran).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/zsandbox/zsandbox/contexts"
	_ "github.com/zsandbox/zsandbox/contexts/apple"
	_ "github.com/zsandbox/zsandbox/contexts/daytona"
	_ "github.com/zsandbox/zsandbox/contexts/docker"
	_ "github.com/zsandbox/zsandbox/contexts/e2b"
	_ "github.com/zsandbox/zsandbox/contexts/local"
	_ "github.com/zsandbox/zsandbox/contexts/process"
)

const usage = `usage:
  zctx run     [spawn flags] [--timeout D] -- COMMAND [ARG...]
  zctx spawn   [spawn flags]                 print the handle (JSON)
  zctx exec    HANDLE [--cwd D] [--env K=V] [--pass-env N] [--timeout D] -- COMMAND [ARG...]
  zctx cp      SRC DST                       HANDLE:PATH on one side, a host path or - on the other
  zctx ls      [HANDLE [DIR]]                handles, or the files in DIR
  zctx destroy HANDLE
spawn flags: --context process|docker|apple|local|e2b|daytona --cwd DIR --env KEY=VALUE --pass-env NAME
  --network allow|deny --writable PATH --hide PATH --isolation on|off --zsandbox PATH (process)
  --image IMG --mount HOST:CTR[:ro] --publish [IP:]HOSTPORT:PORT --user UID:GID --memory MIB --cpus N
  --pids N --docker-host ADDR (docker, apple, local)
  --pregame FILE --sandbox ID --sandbox-on-destroy kill|pause|leave --repo URL --repo-branch B
  --store-git-token (e2b, daytona; keys from E2B_API_KEY, DAYTONA_API_KEY; on daytona kill deletes
  and pause stops; --repo's token from GH_TOKEN/GITHUB_TOKEN (github.com) or gh, left in the
  sandbox only with --store-git-token)`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is zctx with its streams; it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	cmds := map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) (int, error){
		"run": cmdRun, "spawn": cmdSpawn, "exec": cmdExec, "cp": cmdCp, "ls": cmdLs, "destroy": cmdDestroy,
	}
	fn, ok := cmds[args[0]]
	if !ok {
		if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
			fmt.Fprintln(stdout, usage)
			return 0
		}
		return fail(stderr, usagef("unknown command %q", args[0]))
	}
	code, err := fn(ctx, args[1:], stdin, stdout, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	return code
}

// fail prints err as zctx's error lines and returns its exit code.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "zctx: error: %v\n", err)
	if h := contexts.Hint(err); h != "" {
		fmt.Fprintf(stderr, "zctx: hint: %s\n", h)
	}
	if errors.Is(err, contexts.ErrUsage) {
		fmt.Fprintln(stderr, "zctx: hint: zctx help prints the usage")
	}
	return contexts.ExitCode(err)
}
