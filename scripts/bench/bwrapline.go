//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seccomp"
)

// bwrapLine is what `zsandbox explain --format bwrap --landlock off`
// prints: the bwrap binary, its options, and after "--" the command.
type bwrapLine struct {
	bwrap   string
	options []string
	command []string
}

func explainLine(env runEnv, argv []string) (bwrapLine, error) {
	cmd := exec.Command(env.bin, append([]string{"explain", "--format", "bwrap", "--landlock", "off", "--"}, argv...)...)
	cmd.Dir = env.dir
	out, err := cmd.Output()
	if err != nil {
		return bwrapLine{}, fmt.Errorf("zsandbox explain --format bwrap: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	sep := slices.Index(lines, "--")
	if sep < 1 {
		return bwrapLine{}, fmt.Errorf("zsandbox explain --format bwrap: no \"--\" line in %q", out)
	}
	l := bwrapLine{bwrap: lines[0], options: lines[1:sep], command: lines[sep+1:]}
	if !slices.Equal(l.command, argv) {
		return bwrapLine{}, fmt.Errorf("zsandbox explain --format bwrap: command %q, want %q", l.command, argv)
	}
	return l, nil
}

// directBwrap runs the explained bwrap line without zsandbox. The options
// name descriptors; each gets what zsandbox would hand over: the seccomp
// filter zsandbox compiles (the built-in profile plus --network deny), a
// status sink, an empty file per --ro-bind-data, the source of each --bind-fd. With viaArgs the options
// go through --args ArgsFD in a memfd, as zsandbox passes them; else they
// are on bwrap's command line.
func directBwrap(env runEnv, argv []string, viaArgs bool) (*variant, error) {
	l, err := explainLine(env, argv)
	if err != nil {
		return nil, err
	}
	files, missing, rewind, err := descriptors(l.options, filepath.Dir(env.dir))
	if err != nil {
		return nil, err
	}
	args := append(append([]string{l.bwrap}, l.options...), "--")
	v := &variant{key: "b", label: "bwrap line, options on the command line", files: files,
		after: func() { removeMountPoints(missing) }}
	if viaArgs {
		v.key, v.label = "b'", "bwrap line, options through --args FD"
		if v.files, rewind, err = withArgsFile(files, rewind, l.options); err != nil {
			closeAll(files)
			return nil, err
		}
		args = []string{l.bwrap, "--args", strconv.Itoa(argsFD), "--"}
	}
	start := command(env.dir, v.files, append(args, argv...))
	v.launch = func() *exec.Cmd {
		rewind()
		return start()
	}
	return v, nil
}

const (
	argsFD    = 3 // the fd zsandbox uses for --args
	firstFree = 3 // ExtraFiles[0] is fd 3
)

// descriptors opens what each fd option of bwrap reads or writes, at the
// fd number the option names. rewind seeks the files bwrap reads to their
// start, since every run shares one open file.
// missing are the bind destinations that did not exist (see
// removeMountPoints); their stand-ins are made in scratch, outside the
// project.
func descriptors(options []string, scratch string) (files []*os.File, missing []string, rewind func(), err error) {
	var bpf *os.File
	for i := 0; i+1 < len(options); i++ {
		var f *os.File
		switch options[i] {
		case "--seccomp", "--add-seccomp-fd":
			if bpf == nil {
				bpf, err = compileFilter()
			}
			f = bpf
		case "--json-status-fd", "--info-fd":
			f, err = os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		case "--ro-bind-data", "--bind-data", "--file":
			f, err = os.Open(os.DevNull)
		case "--bind-fd", "--ro-bind-fd":
			// The bind source, opened as exec opens it (a path descriptor).
			// A protected path that does not exist yet gets a placeholder
			// when exec runs; a file with the placeholder's content stands
			// in for it here (git refuses an empty commondir, and cannot
			// read /dev/null on a nodev mount).
			if i+2 < len(options) {
				f, err = os.OpenFile(options[i+2], unix.O_PATH, 0)
				if errors.Is(err, fs.ErrNotExist) {
					missing = append(missing, missingFrom(options[i+2])...)
					f, err = standIn(scratch, options[i+2])
				}
			}
		case "--args", "--block-fd", "--userns-block-fd", "--sync-fd", "--userns", "--userns2", "--pidns":
			err = fmt.Errorf("bwrap option %s: not supported by the benchmark", options[i])
		default:
			continue
		}
		if err == nil {
			files, err = place(files, options[i+1], f)
		}
		if err != nil {
			closeAll(files)
			return nil, nil, nil, err
		}
		i++ // the descriptor; for the data options the path follows
	}
	return files, missing, func() { seekStart(bpf) }, nil
}

// standIn is a read-only file in scratch holding what exec's placeholder
// for path would hold, opened as a path descriptor. (bwrap binds it by its
// /proc/self/fd link, so it must stay until the benchmark ends.)
func standIn(scratch, path string) (*os.File, error) {
	tmp, err := os.CreateTemp(scratch, "placeholder-")
	if err != nil {
		return nil, err
	}
	defer tmp.Close()
	if _, err := tmp.WriteString(policy.PlaceholderContent(path)); err != nil {
		return nil, err
	}
	os.Chmod(tmp.Name(), 0o444)
	return os.OpenFile(tmp.Name(), unix.O_PATH, 0)
}

// missingFrom is p and its missing ancestors, outermost first.
func missingFrom(p string) []string {
	var out []string
	for ; p != "/" && p != "."; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			break
		}
		out = append([]string{p}, out...)
	}
	return out
}

// removeMountPoints removes what bwrap left on the host for the bind
// destinations that did not exist: to mount on a missing path, bwrap
// creates an empty file (or directory) there, and nothing removes it when
// the sandbox is gone. Left in the project, an empty .git/commondir makes
// the next bare `git status` fail ("failed to read .git/commondir"), and
// the next zsandbox run would find a real file where exec makes its
// placeholder. (zsandbox's exec makes each such path a placeholder itself
// and its guard removes it; the line explain prints, run by hand, has no
// guard.) Only empty entries go: os.Remove refuses anything else.
func removeMountPoints(missing []string) {
	for i := len(missing) - 1; i >= 0; i-- {
		if fi, err := os.Lstat(missing[i]); err == nil && (fi.IsDir() || fi.Size() == 0) {
			os.Remove(missing[i])
		}
	}
}

// place puts f at descriptor fd (as text) in an ExtraFiles list.
func place(files []*os.File, fd string, f *os.File) ([]*os.File, error) {
	n, err := strconv.Atoi(fd)
	if err != nil || n < firstFree {
		return files, fmt.Errorf("descriptor %q: not a number from %d", fd, firstFree)
	}
	for len(files) <= n-firstFree {
		files = append(files, nil)
	}
	if files[n-firstFree] != nil && files[n-firstFree] != f {
		return files, fmt.Errorf("descriptor %d named twice", n)
	}
	files[n-firstFree] = f
	return files, nil
}

func withArgsFile(files []*os.File, rewind func(), options []string) ([]*os.File, func(), error) {
	fd, err := unix.MemfdCreate("bench-bwrap-args", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, nil, err
	}
	args := os.NewFile(uintptr(fd), "bwrap-args")
	var buf bytes.Buffer
	for _, o := range options {
		buf.WriteString(o)
		buf.WriteByte(0)
	}
	if _, err := args.Write(buf.Bytes()); err != nil {
		args.Close()
		return nil, nil, err
	}
	out := slices.Clone(files)
	if len(out) == 0 {
		out = append(out, nil)
	}
	if out[argsFD-firstFree] != nil {
		args.Close()
		return nil, nil, fmt.Errorf("descriptor %d is taken by an option", argsFD)
	}
	out[argsFD-firstFree] = args
	return out, func() { rewind(); seekStart(args) }, nil
}

// compileFilter builds the filter exec passes with the default policy
// (--network deny) and seals it in a memfd.
func compileFilter() (*os.File, error) {
	bpf, err := seccomp.Compile(seccomp.WithNetworkDeny(seccomp.Default()))
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w (the harness needs cgo and libseccomp, as scripts/build.sh does)", err)
	}
	return seccomp.SealedFD(bpf)
}

func seekStart(f *os.File) {
	if f != nil {
		f.Seek(0, io.SeekStart)
	}
}
