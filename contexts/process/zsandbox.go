package process

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/policy"
)

// findZsandbox returns the zsandbox binary to run: the explicit path, else
// the one next to the running program, else the first on PATH. A binary
// inside one of the context's writable roots is refused: a sandboxed
// command could have planted it there, and running it would hand that
// command every later command unsandboxed. PATH entries that are relative
// are skipped for the same reason (they resolve against a writable cwd).
func findZsandbox(explicit string, roots []string, path string) (string, error) {
	if explicit != "" {
		return checkZsandbox(explicit, roots)
	}
	var refused error
	for _, c := range candidates(path) {
		if !isExecutable(c) {
			continue
		}
		bin, err := checkZsandbox(c, roots)
		if err == nil {
			return bin, nil
		}
		if refused == nil {
			refused = err
		}
	}
	if refused != nil {
		return "", refused
	}
	return "", contexts.Errorf(contexts.ErrUnavailable, "zsandbox not found next to this program or on PATH; nothing ran").
		WithHint("install zsandbox (scripts/ci-linux.sh builds bin/zsandbox) or pass its path (--zsandbox PATH); --isolation off runs commands unsandboxed on purpose")
}

// candidates are the places findZsandbox looks, in order.
func candidates(path string) []string {
	var out []string
	if self, err := os.Executable(); err == nil {
		out = append(out, filepath.Join(filepath.Dir(self), "zsandbox"))
	}
	for _, dir := range filepath.SplitList(path) {
		if filepath.IsAbs(dir) {
			out = append(out, filepath.Join(dir, "zsandbox"))
		}
	}
	return out
}

// lookupPlaces are the paths every command's sandbox protects: the
// explicit binary and every place findZsandbox looks. Refusing a binary
// in this command's writable roots is not enough: a command whose cwd
// holds zctx's directory could plant tools/zsandbox next to zctx (or in a
// PATH directory inside its cwd, node_modules/.bin), and a later command
// with another cwd, for which that place is no writable root, would run
// it, unsandboxed. zsandbox enforces those inside the writable roots.
func lookupPlaces(explicit, path string) []string {
	out := candidates(path)
	if explicit != "" {
		if abs, err := filepath.Abs(explicit); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// checkZsandbox makes bin absolute and symlink-free and refuses it inside a
// writable root.
func checkZsandbox(bin string, roots []string) (string, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return "", contexts.Errorf(contexts.ErrUnavailable, "zsandbox %q: %v", bin, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", contexts.Errorf(contexts.ErrUnavailable, "zsandbox %q: %v; nothing ran", bin, err).
			WithHint("install zsandbox or pass its path with --zsandbox PATH")
	}
	for _, r := range roots {
		if policy.Within(real, r) {
			return "", contexts.Errorf(contexts.ErrUnavailable,
				"refusing zsandbox %q: it lies inside the writable root %q, where a sandboxed command could have planted it; nothing ran", real, r).
				WithHint("install zsandbox outside the writable roots (e.g. /usr/local/bin) or pass that path with --zsandbox PATH")
		}
	}
	if !isExecutable(real) {
		return "", contexts.Errorf(contexts.ErrUnavailable, "zsandbox %q is not an executable file; nothing ran", real)
	}
	return real, nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// zsandboxArgs is the argv that runs argv under zsandbox with the
// handle's policy. Everything is explicit so that what the context says
// (and what WriteFile and ReadFile enforce in-process) is what runs.
func zsandboxArgs(bin string, sp spec, argv []string) []string {
	// --flag=value: a value that looks like a flag (an env entry a model
	// wrote, "--writable=/") stays a value.
	args := []string{bin, "exec", "--cwd=" + sp.cwd, "--network=" + string(sp.network)}
	for _, w := range sp.writable {
		args = append(args, "--writable="+w)
	}
	for _, h := range sp.hide {
		args = append(args, "--hide="+h)
	}
	for _, p := range sp.protect {
		args = append(args, "--protect="+p)
	}
	for _, e := range sp.env {
		args = append(args, "--env="+e)
	}
	for _, n := range sp.passEnv {
		args = append(args, "--pass-env="+n)
	}
	args = append(args, "--")
	return append(args, argv...)
}

// zsandboxEnv is the environment zsandbox itself starts with: the host's
// minus ZSANDBOX_* variables, which would otherwise widen the sandbox
// behind the context's back (the flags above say everything).
func zsandboxEnv(host []string) []string {
	out := make([]string, 0, len(host))
	for _, kv := range host {
		if !strings.HasPrefix(kv, "ZSANDBOX_") {
			out = append(out, kv)
		}
	}
	return out
}
