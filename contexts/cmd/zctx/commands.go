package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/docker"
)

// spawned is what spawnFrom made; release lets go of the claim on its
// container (once the handle is saved, or is destroyed).
type spawned struct {
	h       contexts.Handle
	rec     record
	f       *flags
	rest    []string
	release func()
}

// spawnFrom parses the spawn flags, makes the context and spawns a handle.
func spawnFrom(ctx context.Context, name string, args []string, stderr io.Writer, command bool) (spawned, error) {
	sp, err := spawnFlags(ctx, name, args, stderr, command)
	if err != nil && sp.release != nil {
		sp.release()
	}
	return sp, err
}

func spawnFlags(ctx context.Context, name string, args []string, stderr io.Writer, command bool) (spawned, error) {
	none := spawned{}
	f := &flags{}
	fs := newFlagSet(name, f, true, command)
	pos, rest, err := parse(fs, args)
	if err != nil {
		return none, err
	}
	if len(pos) > 0 {
		return none, usagef("unexpected argument %q (the command goes after --)", pos[0])
	}
	fac, err := contexts.Lookup(f.context)
	if err != nil {
		return none, err
	}
	opts, err := f.options(fs, fac.Applies, stderr)
	if err != nil {
		return none, err
	}
	dir, err := openStateDir()
	if err != nil {
		return none, err
	}
	// zctx's own state is never visible to the commands it runs.
	opts.Hide = append(opts.Hide, dir)
	release := func() {}
	if f.context == docker.Kind {
		cl, err := newClaim(dir)
		if err != nil {
			return none, err
		}
		opts.Labels, release, none.release = cl.labels(), cl.release, cl.release
	}
	c, err := fac.New(opts)
	if err != nil {
		return none, err
	}
	if dc, ok := c.(*docker.Context); ok {
		sweep(ctx, dc, dir, stderr)
	}
	h, err := c.Spawn(ctx, contexts.SpawnConfig{Cwd: f.cwd, Env: f.env, PassEnv: f.passEnv})
	if err != nil {
		return none, err
	}
	return spawned{h: h, rec: record{Options: opts, State: h.State()}, f: f, rest: rest, release: release}, nil
}

func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	sp, err := spawnFrom(ctx, "run", args, stderr, true)
	if err != nil {
		return 0, err
	}
	h, f, rest := sp.h, sp.f, sp.rest
	defer sp.release() // after the destroy below
	defer func() {
		if err := destroy(context.WithoutCancel(ctx), h, stderr); err != nil {
			fmt.Fprintf(stderr, "zctx: error: destroy: %v\n", err)
		}
	}()
	if len(rest) == 0 {
		return 0, usagef("run: no command (zctx run [flags] -- COMMAND)")
	}
	return execute(ctx, h, contexts.Cmd{Args: rest, Timeout: f.timeout}, stdin, stdout, stderr)
}

// destroy destroys h and says how to reach a remote sandbox it kept
// (--sandbox-on-destroy pause or leave).
func destroy(ctx context.Context, h contexts.Handle, stderr io.Writer) error {
	if err := h.Destroy(ctx); err != nil {
		return err
	}
	if k, ok := h.(contexts.Kept); ok && k.Kept() != "" {
		fmt.Fprintf(stderr, "zctx: sandbox %s kept; pass --sandbox %s to the next run to reconnect\n", k.Kept(), k.Kept())
	}
	return nil
}

func cmdSpawn(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) (int, error) {
	sp, err := spawnFrom(ctx, "spawn", args, stderr, false)
	if err != nil {
		return 0, err
	}
	defer sp.release() // once the handle is saved, or destroyed
	h, rec, rest := sp.h, sp.rec, sp.rest
	if len(rest) > 0 {
		h.Destroy(ctx)
		return 0, usagef("spawn takes no command; use zctx exec HANDLE -- COMMAND")
	}
	dir, _ := openStateDir()
	if err := save(dir, rec); err != nil {
		h.Destroy(ctx)
		return 0, err
	}
	out, _ := json.Marshal(rec.State)
	fmt.Fprintln(stdout, string(out))
	return 0, nil
}

// attach reopens the handle named by arg.
func attach(ctx context.Context, arg string) (contexts.Handle, record, string, error) {
	id, err := handleID(arg)
	if err != nil {
		return nil, record{}, "", err
	}
	dir, err := openStateDir()
	if err != nil {
		return nil, record{}, "", err
	}
	rec, err := load(dir, id)
	if err != nil {
		return nil, rec, dir, err
	}
	c, err := contexts.New(rec.State.Kind, rec.Options)
	if err != nil {
		return nil, rec, dir, err
	}
	h, err := c.Attach(ctx, rec.State)
	return h, rec, dir, err
}

func cmdExec(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	f := &flags{}
	pos, rest, err := parse(newFlagSet("exec", f, false, true), args)
	if err != nil {
		return 0, err
	}
	if len(pos) != 1 || len(rest) == 0 {
		return 0, usagef("exec: want HANDLE -- COMMAND")
	}
	h, _, _, err := attach(ctx, pos[0])
	if err != nil {
		return 0, err
	}
	return execute(ctx, h, contexts.Cmd{Args: rest, Cwd: f.cwd, Env: f.env, PassEnv: f.passEnv, Timeout: f.timeout},
		stdin, stdout, stderr)
}

// execute runs cmd with zctx's streams and returns its exit code.
func execute(ctx context.Context, h contexts.Handle, cmd contexts.Cmd, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	r, err := h.Exec(ctx, cmd)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return contexts.SignalExit(syscall.SIGINT), nil // interrupted: the command was killed
	}
	if err != nil {
		return 0, err
	}
	if r.TimedOut {
		fmt.Fprintf(stderr, "zctx: error: the command ran past --timeout %v and was killed\n", cmd.Timeout)
	}
	return r.ExitCode, nil
}

func cmdCp(ctx context.Context, args []string, stdin io.Reader, stdout, _ io.Writer) (int, error) {
	if len(args) != 2 {
		return 0, usagef("cp: want SRC DST, one of them HANDLE:PATH")
	}
	srcH, srcP, srcIn := splitRemote(args[0])
	dstH, dstP, dstIn := splitRemote(args[1])
	switch {
	case srcIn && !dstIn:
		h, _, _, err := attach(ctx, srcH)
		if err != nil {
			return 0, err
		}
		data, err := h.ReadFile(ctx, srcP)
		if err != nil {
			return 0, err
		}
		if args[1] == "-" {
			_, err = stdout.Write(data)
			return 0, err
		}
		return 0, os.WriteFile(args[1], data, 0o644)
	case dstIn && !srcIn:
		h, _, _, err := attach(ctx, dstH)
		if err != nil {
			return 0, err
		}
		var data []byte
		if args[0] == "-" {
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(args[0])
		}
		if err != nil {
			return 0, usagef("cp: %v", err)
		}
		return 0, h.WriteFile(ctx, dstP, data, 0o644)
	}
	return 0, usagef("cp: exactly one of SRC and DST must be HANDLE:PATH")
}

// splitRemote splits HANDLE:PATH; a host path never has a handle id
// before its first colon unless it is meant (ids have no slash).
func splitRemote(s string) (handle, path string, ok bool) {
	h, p, found := strings.Cut(s, ":")
	if !found || h == "" || strings.Contains(h, "/") || !idPattern.MatchString(h) {
		return "", s, false
	}
	return h, p, true
}

func cmdLs(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) (int, error) {
	if len(args) == 0 {
		dir, err := openStateDir()
		if err != nil {
			return 0, err
		}
		recs, err := loadAll(dir)
		for _, r := range recs {
			fmt.Fprintln(stdout, describe(r))
		}
		return 0, err
	}
	if len(args) > 2 {
		return 0, usagef("ls: want [HANDLE [DIR]]")
	}
	h, _, _, err := attach(ctx, args[0])
	if err != nil {
		return 0, err
	}
	dirArg := "."
	if len(args) == 2 {
		dirArg = args[1]
	}
	list, err := h.ListFiles(ctx, dirArg)
	if err != nil {
		return 0, err
	}
	enc := json.NewEncoder(stdout)
	for _, e := range list {
		enc.Encode(e)
	}
	return 0, nil
}

func cmdDestroy(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) (int, error) {
	if len(args) != 1 {
		return 0, usagef("destroy: want HANDLE")
	}
	id, err := handleID(args[0])
	if err != nil {
		return 0, err
	}
	dir, err := openStateDir()
	if err != nil {
		return 0, err
	}
	rec, err := load(dir, id)
	if errors.Is(err, contexts.ErrDestroyed) {
		return 0, nil // destroy is idempotent
	}
	if err != nil {
		return 0, err
	}
	c, err := contexts.New(rec.State.Kind, rec.Options)
	if err != nil {
		return 0, err
	}
	if dc, ok := c.(*docker.Context); ok {
		defer sweep(ctx, dc, dir, stderr)
	}
	h, err := c.Attach(ctx, rec.State)
	switch {
	case err == nil:
		if err := destroy(ctx, h, stderr); err != nil {
			return 0, err
		}
	case !errors.Is(err, contexts.ErrNotFound):
		return 0, err
	}
	rec.Destroyed = true
	return 0, save(dir, rec)
}
