package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// Inputs that fail open (issue 14): odd working directories, TMPDIR, HOME,
// path lengths and encodings, the caller's ZSANDBOX_* variables and the
// standard descriptors the command inherits. Each is refused or yields the
// narrow policy; every check is made from outside.

// stdio is what one run's standard descriptors are.
type stdio struct {
	in, out *os.File // nil: empty stdin, captured stdout
	env     []string // added to the fixture's environment
}

// runWith runs zsandbox with args as the identity in dir, with the given
// descriptors. wrap, if set, runs it under another program first (an outer
// bwrap, a shell).
func (e *env) runStdio(t *testing.T, dir string, s stdio, wrap []string, args ...string) result {
	t.Helper()
	cmd := e.command(dir, args...)
	if len(wrap) > 0 {
		cmd.Path, _ = exec.LookPath(wrap[0])
		cmd.Args = append(append([]string{}, wrap...), append([]string{zsandbox}, args...)...)
	}
	cmd.Env = append(cmd.Env, s.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if s.in != nil {
		cmd.Stdin = s.in
	}
	if s.out != nil {
		cmd.Stdout = s.out
	}
	err := cmd.Run()
	return result{Code: exitCodeOf(err), Stdout: out.String(), Stderr: errb.String()}
}

// refusedBeforeRun asserts a usage error (exit 2) and that nothing ran:
// the script touches $TMPDIR/ran first, which any run could do.
func refusedBeforeRun(t *testing.T, e *env, r result, what string) {
	t.Helper()
	if r.Code != 2 || !strings.Contains(r.Stderr, "zsandbox: error: ") {
		t.Errorf("%s: want exit 2 with an error line\n%s", what, r)
	}
	ran := filepath.Join(e.tmp, "ran")
	if _, err := os.Lstat(ran); err == nil {
		t.Errorf("%s: the command ran", what)
		os.Remove(ran)
	}
	assertNoSecret(t, e, r, what)
}

const ranMarker = "touch $TMPDIR/ran; "

// TestKernelTreeCwdRefused: cd / made the whole machine writable (as root,
// /etc on the host), cd /proc or /sys bound the host's kernel trees
// writable. The cwd, --cwd, ZSANDBOX_CWD and TMPDIR get --writable's rule.
func TestKernelTreeCwdRefused(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		etc := "/etc/zsandbox-e2e-" + harness.RandHex(4)
		t.Cleanup(func() { os.Remove(etc) })
		out := filepath.Join(e.outside, "planted")
		script := ranMarker + "touch " + etc + " " + out + "; echo x > /proc/sys/kernel/zsandbox-e2e"
		for _, dir := range []string{"/", "/proc", "/sys", "/dev", "/proc/self"} {
			r := e.runStdio(t, dir, stdio{}, nil, "exec", "--", "sh", "-c", script)
			refusedBeforeRun(t, e, r, "cwd "+dir)
			if !strings.Contains(r.Stderr, "the working directory") || !strings.Contains(r.Stderr, "--cwd") {
				t.Errorf("cwd %s: the error does not name the working directory and --cwd\n%s", dir, r)
			}
			r = e.runStdio(t, e.proj, stdio{}, nil, "exec", "--cwd", dir, "--", "sh", "-c", script)
			refusedBeforeRun(t, e, r, "--cwd "+dir)
			r = e.runStdio(t, e.proj, stdio{env: []string{"ZSANDBOX_CWD=" + dir}}, nil, "exec", "--", "sh", "-c", script)
			refusedBeforeRun(t, e, r, "ZSANDBOX_CWD="+dir)
			r = e.runStdio(t, e.proj, stdio{env: []string{"TMPDIR=" + dir}}, nil, "exec", "--", "sh", "-c", script)
			refusedBeforeRun(t, e, r, "TMPDIR="+dir)
		}
		harness.MustNotExist(t, etc)
		harness.MustNotExist(t, out)
	})
}

// TestOddWorkingDirectory: a deleted cwd and one the user cannot enter
// are usage errors, not a sandbox that fails half built; an over-long
// path is one too, and a non-UTF-8 one works as named.
func TestOddWorkingDirectory(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		sh := []string{"sh", "-c", `cd "$0" && rmdir ../gone && exec "$@"`, filepath.Join(e.proj, "gone")}
		e.mkdir(filepath.Join(e.proj, "gone"))
		e.chownAll()
		r := e.runStdio(t, e.proj, stdio{}, sh, "exec", "--", "sh", "-c", ranMarker)
		refusedBeforeRun(t, e, r, "deleted cwd")
		// Root can stat it, but its sandbox runs without capabilities:
		// bwrap failed to enter it, with a hint blaming namespaces.
		shut := filepath.Join(e.proj, "shut")
		e.mkdir(shut)
		e.chownAll()
		t.Cleanup(func() { os.Chmod(shut, 0o755) })
		sh = []string{"sh", "-c", `cd "$0" && chmod 000 . && exec "$@"`, shut}
		r = e.runStdio(t, e.proj, stdio{}, sh, "exec", "--", "sh", "-c", ranMarker)
		refusedBeforeRun(t, e, r, "cwd mode 000")
		if strings.Contains(r.Stderr, "namespaces") {
			t.Errorf("cwd mode 000: the error blames namespaces\n%s", r)
		}
		long := strings.Repeat("n", 256)
		r = e.sh(ranMarker, "--writable", long)
		refusedBeforeRun(t, e, r, "--writable with a 256-byte name")
		r = e.sh(ranMarker, "--hide", filepath.Join(e.proj, long))
		refusedBeforeRun(t, e, r, "--hide with a 256-byte name")

		odd := filepath.Join(e.base, "w\xff\xfe")
		e.mkdir(odd)
		e.chownAll()
		mustSucceed(t, e.sh("echo ok > '"+odd+"/f'", "--writable", odd), "--writable non-UTF-8")
		harness.MustContain(t, filepath.Join(odd, "f"), "ok\n")
		e.write(filepath.Join(odd, "secret"), e.secret+"\n")
		e.chownAll()
		r = e.sh("cat '"+odd+"/secret'", "--hide", odd)
		mustFail(t, r, "read a non-UTF-8 hidden path")
		assertNoSecret(t, e, r, "read a non-UTF-8 hidden path")
	})
}

// TestOddHomeAndTmpDir: a relative HOME is refused; TMPDIR values that
// cannot be a root are left out and the command cannot write there, and
// one that names a protected path leaves it protected.
func TestOddHomeAndTmpDir(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.runStdio(t, e.proj, stdio{env: []string{"HOME=proj"}}, nil, "exec", "--", "sh", "-c", ranMarker)
		refusedBeforeRun(t, e, r, "HOME=proj")
		// A relative TMPDIR is not resolved against zsandbox's cwd (here
		// home) to make a root of it; one inside a hidden path is no root.
		e.mkdir(filepath.Join(e.home, "outside"))
		e.chownAll()
		for tmp, abs := range map[string]string{"outside": filepath.Join(e.home, "outside"), filepath.Join(e.home, ".ssh"): filepath.Join(e.home, ".ssh")} {
			r := e.runStdio(t, e.home, stdio{env: []string{"TMPDIR=" + tmp}}, nil,
				"exec", "--cwd", e.proj, "--", "sh", "-c", "echo evil > "+abs+"/planted")
			mustFail(t, r, "write into TMPDIR="+tmp)
		}
		harness.MustNotExist(t, filepath.Join(e.home, "outside", "planted"))
		harness.MustNotExist(t, filepath.Join(e.home, ".ssh", "planted"))
		// TMPDIR naming a protected path does not open it, as a
		// --writable would on purpose.
		hooks := filepath.Join(repo(t, e), "hooks")
		r = e.runStdio(t, e.proj, stdio{env: []string{"TMPDIR=" + hooks}}, nil,
			"exec", "--", "sh", "-c", "echo evil > \"$TMPDIR/pre-commit\"")
		mustFail(t, r, "plant a hook through TMPDIR")
		harness.MustNotExist(t, filepath.Join(hooks, "pre-commit"))
	})
}

// TestOwnVariablesNotPassed: the caller's ZSANDBOX_* do not reach the
// command, and a zsandbox nested in the command (the Landlock-only backend
// works inside ours) can only narrow: ZSANDBOX_WRITABLE set inside does
// not make a host directory writable.
func TestOwnVariablesNotPassed(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.runStdio(t, e.proj, stdio{env: []string{"ZSANDBOX_HIDE=/nonexistent", "ZSANDBOX_NETWORK=deny"}}, nil,
			"exec", "--", "sh", "-c", "env | grep ^ZSANDBOX_ || echo none")
		if strings.TrimSpace(r.Stdout) != "none" {
			t.Errorf("the command sees zsandbox's variables:\n%s", r)
		}
		file := filepath.Join(e.outside, "file")
		// The outer run hides the settings file; the nested one reads none.
		nested := "XDG_CONFIG_HOME=/nonexistent-xdg ZSANDBOX_WRITABLE=" + e.outside + " " + zsandbox + " exec --backend landlock --no-warning -- sh -c 'echo evil > " + file + "; echo nested-ran'"
		r = e.sh(nested)
		if e.id.UID != 0 && !strings.Contains(r.Stdout, "nested-ran") {
			t.Errorf("the nested zsandbox did not run:\n%s", r)
		}
		harness.MustContain(t, file, "original\n")
	})
}

// openFile opens p as the test (root) does for a caller's redirection.
func openFile(t *testing.T, p string, flags int) *os.File {
	t.Helper()
	f, err := os.OpenFile(p, flags, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestStdinDescriptor: stdin is the caller's own descriptor. A directory
// on it reached hidden files (cat /proc/self/fd/0/.ssh/id_rsa) and, with
// --landlock off, wrote below it; a file outside the roots was rewritten
// through /proc/self/fd/0 with --landlock off, or through the descriptor
// itself when opened read-write.
func TestStdinDescriptor(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		attack := ranMarker + "cat /proc/self/fd/0/.ssh/id_rsa; ls /proc/self/fd/0; echo evil > /proc/self/fd/0/planted"
		for _, flags := range [][]string{nil, {"--landlock", "off"}, {"--hint", "off"}} {
			args := append(append([]string{"exec"}, flags...), "--", "sh", "-c", attack)
			r := e.runStdio(t, e.proj, stdio{in: openFile(t, e.home, os.O_RDONLY)}, nil, args...)
			refusedBeforeRun(t, e, r, "stdin a directory "+strings.Join(flags, " "))
			fd, err := unix.Open(e.home, unix.O_PATH|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			// Closed through its *os.File: a raw close would leave the
			// File's finalizer to close the number again later, by then
			// another test's pipe (TestStdioBinaryExact flaked).
			opath := os.NewFile(uintptr(fd), "opath")
			r = e.runStdio(t, e.proj, stdio{in: opath}, nil, args...)
			opath.Close()
			refusedBeforeRun(t, e, r, "stdin an O_PATH descriptor "+strings.Join(flags, " "))
		}
		harness.MustNotExist(t, filepath.Join(e.home, "planted"))

		file := filepath.Join(e.outside, "file")
		for _, c := range []struct {
			flags  []string
			open   int
			script string
		}{
			{[]string{"--landlock", "off"}, os.O_RDONLY, "echo evil > /proc/self/fd/0"},
			{nil, os.O_RDONLY, "echo evil > /proc/self/fd/0"},
			{[]string{"--landlock", "off"}, os.O_RDWR, "echo evil >&0"},
			{nil, os.O_RDWR, "echo evil >&0; echo evil > /proc/self/fd/0"},
		} {
			e.write(file, "original\n") // each case on its own
			e.chownAll()
			args := append(append([]string{"exec"}, c.flags...), "--", "sh", "-c", c.script+"; cat")
			r := e.runStdio(t, e.proj, stdio{in: openFile(t, file, c.open)}, nil, args...)
			if !strings.HasPrefix(r.Stdout, "original\n") {
				t.Errorf("%v %q: the command could not read its stdin\n%s", c.flags, c.script, r)
			}
			harness.MustContain(t, file, "original\n")
		}
	})
}

// TestStdinFileNotReadAhead: a read-only file on stdin is passed as it is
// when Landlock fences it, so a caller's `while read` loop over the file
// keeps its place: zsandbox does not read ahead of the command.
func TestStdinFileNotReadAhead(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		list := filepath.Join(e.outside, "list")
		e.write(list, "a\nb\n")
		in := openFile(t, list, os.O_RDONLY)
		mustSucceed(t, e.runStdio(t, e.proj, stdio{in: in}, nil, "exec", "--", "true"), "true < list")
		if off, _ := in.Seek(0, io.SeekCurrent); off != 0 {
			t.Errorf("the caller's offset in stdin moved to %d; want 0", off)
		}
		r := e.runStdio(t, e.proj, stdio{in: in}, nil, "exec", "--", "head", "-n1")
		if r.Stdout != "a\n" {
			t.Errorf("head -n1 < list: %q\n%s", r.Stdout, r)
		}
	})
}

// TestOutputDescriptors: stdout and stderr are the caller's descriptors
// too. A directory opened read-only on one (exec 1</) reached hidden
// files; a log file outside the roots could be read back or truncated
// through /proc/self/fd/1 with --hint off (with hints on it already runs
// through a pipe).
func TestOutputDescriptors(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		attack := ranMarker + "ls /proc/self/fd/1/.ssh >&2; cat /proc/self/fd/1/.ssh/id_rsa >&2"
		for _, flags := range [][]string{nil, {"--hint", "off"}} {
			args := append(append([]string{"exec"}, flags...), "--", "sh", "-c", attack)
			r := e.runStdio(t, e.proj, stdio{out: openFile(t, e.home, os.O_RDONLY)}, nil, args...)
			refusedBeforeRun(t, e, r, "stdout a directory "+strings.Join(flags, " "))
		}
		log := filepath.Join(e.outside, "log")
		e.write(log, e.secret+"\n")
		e.chownAll()
		// dd reads without blocking: from a file it gets the old lines,
		// from a pipe nothing.
		script := "echo new; dd if=/proc/self/fd/1 iflag=nonblock bs=4096 count=1 status=none >&2; echo trunc > /proc/self/fd/1"
		for _, flags := range [][]string{nil, {"--hint", "off"}, {"--hint", "off", "--landlock", "off"}} {
			args := append(append([]string{"exec"}, flags...), "--", "sh", "-c", script)
			r := e.runStdio(t, e.proj, stdio{out: openFile(t, log, os.O_WRONLY|os.O_APPEND)}, nil, args...)
			assertNoSecret(t, e, r, "read back the log "+strings.Join(flags, " "))
			// The command's "new" may be read back from its own pipe by dd,
			// so only the old content is checked.
			b, _ := os.ReadFile(log)
			if !strings.HasPrefix(string(b), e.secret+"\n") {
				t.Errorf("%v: the log was rewritten, not appended to: %q", flags, b)
			}
		}
	})
}

// TestAloneDescriptors: the Landlock-only backend execs the command in
// place and cannot copy: a directory or a read-write file on stdin is
// refused, and Landlock stops rewriting a read-only one.
func TestAloneDescriptors(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		if e.id.UID == 0 {
			return // the backend refuses root (TestAloneBackend)
		}
		bwrapPath, _ := exec.LookPath("bwrap")
		outer := []string{bwrapPath, "--dev-bind", "/", "/", "--unshare-user", "--disable-userns", "--"}
		args := []string{"exec", "--backend", "landlock", "--no-warning", "--", "sh", "-c"}
		r := e.runStdio(t, e.proj, stdio{in: openFile(t, e.home, os.O_RDONLY)}, outer,
			append(args, ranMarker+"cat /proc/self/fd/0/.ssh/id_rsa; ls /proc/self/fd/0")...)
		refusedBeforeRun(t, e, r, "--backend landlock, stdin a directory")
		file := filepath.Join(e.outside, "file")
		r = e.runStdio(t, e.proj, stdio{in: openFile(t, file, os.O_RDWR)}, outer, append(args, ranMarker+"echo evil >&0")...)
		refusedBeforeRun(t, e, r, "--backend landlock, stdin read-write")
		harness.MustContain(t, file, "original\n")
		r = e.runStdio(t, e.proj, stdio{in: openFile(t, file, os.O_RDONLY)}, outer, append(args, "echo evil > /proc/self/fd/0; cat")...)
		if r.Stdout != "original\n" {
			t.Errorf("--backend landlock: stdin not readable\n%s", r)
		}
		harness.MustContain(t, file, "original\n")
	})
}

// TestKernelMountInRootRefused: a writable root holding a second mount of
// procfs (a build chroot's) was bound writable with it; as root the
// command could then open the host's core_pattern for writing. The mount
// is made in a private mount namespace, then zsandbox runs as the
// identity from the chroot.
func TestKernelMountInRootRefused(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		chroot := filepath.Join(e.base, "chroot")
		e.mkdir(filepath.Join(chroot, "proc"))
		e.chownAll()
		probe := ranMarker + `python3 -c 'import os; os.close(os.open("proc/sys/kernel/core_pattern", os.O_WRONLY)); print("WRITABLE")'`
		script := `mount -t proc proc proc && exec setpriv --reuid=` + strconv.Itoa(e.id.UID) + ` --regid=` + strconv.Itoa(e.id.GID) +
			` --clear-groups "$0" "$@"`
		cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, zsandbox, "exec", "--", "sh", "-c", probe)
		cmd.Dir = chroot
		cmd.Env = e.command(chroot).Env
		r := harness.Run(t, cmd)
		refusedBeforeRun(t, e, r, "cwd holding a proc mount")
		if strings.Contains(r.Stdout, "WRITABLE") || !strings.Contains(r.Stderr, "proc mount") {
			t.Errorf("want a refusal naming the proc mount\n%s", r)
		}
	})
}

// TestStreamsPassed: what agents' harnesses hand a command (a socketpair,
// as Node's child_process does, or /dev/null) still works as stdin.
func TestStreamsPassed(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		ours, theirs := os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "theirs")
		defer theirs.Close()
		ours.WriteString("hello\n")
		ours.Close()
		if r := e.runStdio(t, e.proj, stdio{in: theirs}, nil, "exec", "--", "cat"); r.Stdout != "hello\n" {
			t.Errorf("socketpair stdin: %q\n%s", r.Stdout, r)
		}
		null := openFile(t, os.DevNull, os.O_RDWR)
		if r := e.runStdio(t, e.proj, stdio{in: null, out: null}, nil, "exec", "--", "sh", "-c", "cat; echo err >&2"); r.Code != 0 || r.Stderr != "err\n" {
			t.Errorf("/dev/null on stdin and stdout:\n%s", r)
		}
	})
}

// TestStdinProtectedFile: a descriptor is opened outside the sandbox, so
// reopening it through /proc/self/fd/0 passes under the read-only mounts
// that protect .git/config and mask hidden paths inside a writable root;
// Landlock allows writes in the root. `cmd < .git/config` let the command
// plant core.fsmonitor, `cmd < ~/.ssh/id_rsa` with cwd = $HOME rewrite a
// hidden file. Such a stdin is copied through a pipe; one elsewhere in the
// root is passed as it is and keeps its offset.
func TestStdinProtectedFile(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		config := filepath.Join(repo(t, e), "config")
		before, _ := os.ReadFile(config)
		key := filepath.Join(e.home, ".ssh", "id_rsa")
		for file, dir := range map[string]string{config: e.proj, key: e.home} {
			r := e.runStdio(t, dir, stdio{in: openFile(t, file, os.O_RDONLY)}, nil,
				"exec", "--", "sh", "-c", "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> /proc/self/fd/0")
			assertNoSecret(t, e, r, "reopen "+file)
		}
		harness.MustContain(t, config, string(before))
		harness.MustContain(t, key, e.secret+"\n")
		list := filepath.Join(e.proj, "list")
		e.write(list, "a\nb\n")
		e.chownAll()
		in := openFile(t, list, os.O_RDONLY)
		mustSucceed(t, e.runStdio(t, e.proj, stdio{in: in}, nil, "exec", "--", "true"), "true < list")
		if off, _ := in.Seek(0, io.SeekCurrent); off != 0 {
			t.Errorf("stdin from a file in the cwd: the caller's offset moved to %d; want 0", off)
		}
	})
}
