package landlock

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// stage2 runs the test binary as stage 2 of c with argv, as the identity.
func (f *fixture) stage2(c Config, argv []string, env ...string) result {
	f.t.Helper()
	return run(f.t, f.command(testBinary(f.t), c.Command("", argv)[1:], env...))
}

// TestStage2ExitStatus: the command's status passes through; a command that
// cannot run gets 127 (not found) or 126 (found, not executable) and one
// "zsandbox: error:" line; success prints nothing.
func TestStage2ExitStatus(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id identity) {
		f := newFixture(t, id)
		bin := filepath.Join(f.root, "bin")
		f.mkdir(bin)
		f.mkdir(filepath.Join(bin, "zsdir"))
		f.write(filepath.Join(bin, "zstool"), "#!/bin/sh\necho never\n") // 0644: not executable
		f.write(filepath.Join(bin, "noshebang"), "echo script ran \"$@\"\n")
		os.Chmod(filepath.Join(bin, "noshebang"), 0o755)
		f.write(filepath.Join(f.base, "zslocal"), "#!/bin/sh\necho local\n") // in the command's cwd
		os.Chmod(filepath.Join(f.base, "zslocal"), 0o755)
		c := Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{f.root}, NetworkDeny: true}
		path := "PATH=" + f.root + "/empty:" + bin + ":/usr/bin:/bin"
		tests := []struct {
			name           string
			argv           []string
			code           int
			stdout, stderr string
		}{
			{"success prints nothing", []string{"true"}, 0, "", ""},
			{"exit status passes through", []string{"sh", "-c", "echo out; exit 7"}, 7, "out\n", ""},
			{"death by signal passes through", []string{"sh", "-c", "kill -TERM $$"}, 128 + 15, "", ""},
			{"not found", []string{"no-such-command-zs"}, 127, "", "zsandbox: error: no-such-command-zs: command not found\n"},
			{"empty name", []string{""}, 127, "", "zsandbox: error: \"\": command not found\n"},
			{"missing path", []string{f.root + "/nope"}, 127, "", "zsandbox: error: " + f.root + "/nope: no such file or directory\n"},
			{"not executable by path", []string{bin + "/zstool"}, 126, "", "zsandbox: error: " + bin + "/zstool: cannot execute: permission denied\n"},
			{"not executable on PATH", []string{"zstool"}, 126, "", "zsandbox: error: zstool: cannot execute: permission denied\n"},
			{"directory", []string{bin + "/zsdir"}, 126, "", "zsandbox: error: " + bin + "/zsdir: cannot execute: permission denied\n"},
			{"script without #! runs with sh", []string{"noshebang", "a b"}, 0, "script ran a b\n", ""},
			{"not in the cwd without an empty PATH entry", []string{"zslocal"}, 127, "", "zsandbox: error: zslocal: command not found\n"},
			{"empty PATH entry is the cwd", []string{"zslocal"}, 0, "local\n", ""},
		}
		for _, tt := range tests {
			env := path
			if strings.HasPrefix(tt.name, "empty PATH entry") {
				env = "PATH=/usr/bin::/bin"
			}
			r := f.stage2(c, tt.argv, env)
			if r.code != tt.code || r.stdout != tt.stdout || r.stderr != tt.stderr {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q",
					tt.name, r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
			}
		}
	})
}

// TestStage2UnsetPath: without PATH, the command is looked up where
// execvp looks (/bin:/usr/bin).
func TestStage2UnsetPath(t *testing.T) {
	f := newFixture(t, identity{name: "self", uid: os.Geteuid(), gid: os.Getegid()})
	cmd := f.command(testBinary(t), Config{ABI: hostABI, Mode: ModeAuto}.Command("", []string{"sh", "-c", "echo ran"})[1:])
	cmd.Env = []string{"HOME=" + f.base}
	if r := run(t, cmd); r.code != 0 || r.stdout != "ran\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, \"ran\\n\"", r.code, r.stdout, r.stderr)
	}
}

// TestStage2BadArgs: a malformed stage-2 line runs nothing.
func TestStage2BadArgs(t *testing.T) {
	f := newFixture(t, identity{name: "self", uid: os.Geteuid(), gid: os.Getegid()})
	marker := filepath.Join(f.root, "ran")
	r := run(t, f.command(testBinary(t), []string{Stage2Arg, "abi=7", "fs=1", "--", "touch", marker}))
	want := "zsandbox: error: stage 2: no net= argument; the command did not run\n"
	if r.code != 127 || r.stderr != want {
		t.Errorf("exit %d, stderr %q; want 127, %q", r.code, r.stderr, want)
	}
	mustNotExist(t, marker)
}

// TestStage2Confines: the domain survives execve: the command writes inside
// the root but not outside, and cannot signal a process outside.
func TestStage2Confines(t *testing.T) {
	requireLandlock(t, 6)
	eachIdentity(t, func(t *testing.T, id identity) {
		f := newFixture(t, id)
		l := newListeners(t, f)
		c := Config{ABI: hostABI, Mode: ModeRequire, Writable: []string{f.root}, NetworkDeny: true}
		script := "echo in > " + f.root + "/in; echo out > " + f.outside + "/out; echo evil > " + f.outside + "/file; kill -TERM " +
			strconv.Itoa(l.victim.Process.Pid)
		r := f.stage2(c, []string{"sh", "-c", script})
		if r.code == 0 {
			t.Errorf("the attacks all succeeded?\nstderr:\n%s", r.stderr)
		}
		mustContain(t, filepath.Join(f.root, "in"), "in\n")
		mustNotExist(t, filepath.Join(f.outside, "out"))
		mustContain(t, filepath.Join(f.outside, "file"), "original\n")
		if !l.victimAlive() {
			t.Errorf("the process outside the sandbox was killed")
		}
	})
}

// TestStage2FromDeletedFD: stage 2 works when run from a descriptor of a
// binary that is deleted and sits in a directory the user cannot search
// (bwrap execs /proc/self/fd/N), and neither that descriptor nor any other
// inherited one reaches the command.
func TestStage2FromDeletedFD(t *testing.T) {
	eachIdentity(t, func(t *testing.T, id identity) {
		f := newFixture(t, id)
		hidden, err := os.MkdirTemp(baseParent(), "zsandbox-landlock-hidden-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(hidden)
		self := filepath.Join(hidden, "zsandbox")
		if err := copyExecutable(self); err != nil {
			t.Fatal(err)
		}
		exe, err := os.Open(self)
		if err != nil {
			t.Fatal(err)
		}
		defer exe.Close()
		os.Remove(self)
		os.Chmod(hidden, 0o700)
		extra, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer extra.Close()
		c := Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{f.root}, NetworkDeny: true}

		// The command lists its open descriptors above stderr.
		list := []string{"/bin/sh", "-c", "exec ls -l /proc/self/fd"}
		// Control: run directly, it sees the inherited 3 and 4.
		cmd := f.command(list[0], list[1:])
		cmd.ExtraFiles = []*os.File{exe, extra}
		if got := leakedFDs(run(t, cmd).stdout); !strings.HasPrefix(got, "3 4 ") {
			t.Fatalf("control: leaked fds %q, want 3 and 4 among them", got)
		}
		cmd = f.command("/proc/self/fd/3", c.Command("", list)[1:])
		cmd.ExtraFiles = []*os.File{exe, extra}
		r := run(t, cmd)
		if got := leakedFDs(r.stdout); r.code != 0 || got != "" || r.stderr != "" {
			t.Errorf("exit %d, leaked fds %q, stderr %q; want 0, none, no message\n%s", r.code, got, r.stderr, r.stdout)
		}
	})
}

// TestStage2InBwrap runs stage 2 the way zsandbox does, inside bwrap with a
// fresh /dev: the device files tools need work (write /dev/null, a pty and
// a terminal ioctl, POSIX shared memory), the writable root is writable, and
// files cannot be planted in /dev, which bwrap leaves writable.
func TestStage2InBwrap(t *testing.T) {
	requireLandlock(t, 6)
	bwrap := findBwrap(t)
	eachIdentity(t, func(t *testing.T, id identity) {
		f := newFixture(t, id)
		probes := map[string]string{
			"write:/dev/null": "ok", "read:/dev/zero": "ok", "write:/dev/full": "ok", "pty": "ok",
			"create:/dev/shm/zs": "ok", "create:" + f.root + "/new": "ok",
			// bwrap's /dev is a writable tmpfs: only Landlock stops these.
			"create:/dev/zsfile": "EACCES", "mknod:/dev/zsfifo": "EACCES",
		}
		var list []string
		for p := range probes {
			list = append(list, p)
		}
		sort.Strings(list)
		// The command is the probe helper with Landlock off: it only probes
		// the domain stage 2 put it in.
		command := append([]string{testBinary(t)}, Config{ABI: hostABI, Mode: ModeOff}.Command("", list)[2:]...)
		stage2 := Config{ABI: hostABI, Mode: ModeRequire, Writable: []string{f.root}, NetworkDeny: true}.Command(testBinary(t), command)
		args := append([]string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", f.root, f.root,
			"--unshare-all", "--new-session", "--die-with-parent", "--cap-drop", "ALL", "--"}, stage2...)
		r := run(t, f.command(bwrap, args, helperEnv+"=probe"))
		if r.code != 0 {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != len(probes)+2 { // + abi, all threads
			t.Fatalf("helper printed:\n%s", r.stdout)
		}
		for _, line := range lines {
			p, got, _ := strings.Cut(line, " -> ")
			if want, ok := probes[p]; ok && got != want {
				t.Errorf("%s = %s, want %s", p, got, want)
			}
		}
		mustContain(t, filepath.Join(f.root, "new"), "x")
	})
}

func findBwrap(t *testing.T) string {
	t.Helper()
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		if os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" {
			t.Fatal("bwrap not installed")
		}
		t.Skip("bwrap not installed")
	}
	return bwrap
}

// leakedFDs reads "ls -l /proc/self/fd" and returns the descriptors above
// stderr other than the one ls opened to list the directory.
func leakedFDs(ls string) string {
	var fds []int
	for _, line := range strings.Split(ls, "\n") {
		before, target, ok := strings.Cut(line, " -> ")
		fields := strings.Fields(before)
		if !ok || len(fields) == 0 || strings.HasSuffix(target, "/fd") {
			continue
		}
		if n, err := strconv.Atoi(fields[len(fields)-1]); err == nil && n > 2 {
			fds = append(fds, n)
		}
	}
	sort.Ints(fds)
	var b strings.Builder
	for _, n := range fds {
		b.WriteString(strconv.Itoa(n) + " ")
	}
	return b.String()
}

// TestStage2RequireWithoutLandlock simulates a seccomp filter that hides
// Landlock from the stage 2 after the parent planned it (a --seccomp-profile
// refusing landlock_create_ruleset): an outer filter (bwrap --seccomp) makes
// it fail with ENOSYS. Both require and auto then exit 127 and run nothing
// (auto used to run the command without Landlock while explain said
// "enforced"); and without the filter both run it, so the refusal is the
// filter's doing.
func TestStage2RequireWithoutLandlock(t *testing.T) {
	requireLandlock(t, 6)
	bwrap := findBwrap(t)
	hidden := "zsandbox: error: landlock: the sandbox sees Landlock ABI 0, but zsandbox planned the fence for ABI " + strconv.Itoa(hostABI) +
		" (is a seccomp filter refusing landlock_create_ruleset?); the command did not run\n" +
		"zsandbox: hint: let the seccomp profile allow landlock_create_ruleset, landlock_add_rule and landlock_restrict_self, or use --landlock off\n"
	eachIdentity(t, func(t *testing.T, id identity) {
		f := newFixture(t, id)
		tests := []struct {
			name    string
			mode    Mode
			filter  bool
			code    int
			stderr  string
			created bool
		}{
			{"require, Landlock hidden", ModeRequire, true, 127, hidden, false},
			{"auto, Landlock hidden", ModeAuto, true, 127, hidden, false},
			{"require, Landlock", ModeRequire, false, 0, "", true},
			{"auto, Landlock", ModeAuto, false, 0, "", true},
		}
		for i, tt := range tests {
			marker := filepath.Join(f.root, "ran"+strconv.Itoa(i))
			c := Config{ABI: hostABI, Mode: tt.mode, Writable: []string{f.root}, NetworkDeny: true}
			args := []string{"--dev-bind", "/", "/"}
			var files []*os.File
			if tt.filter {
				args = append(args, "--seccomp", "3")
				files = append(files, enosysFilter(t))
			}
			args = append(args, c.Command(testBinary(t), []string{"touch", marker})...)
			cmd := f.command(bwrap, args)
			cmd.ExtraFiles = files
			r := run(t, cmd)
			if r.code != tt.code || r.stderr != tt.stderr {
				t.Errorf("%s: exit %d, stderr %q; want %d, %q", tt.name, r.code, r.stderr, tt.code, tt.stderr)
			}
			if _, err := os.Stat(marker); (err == nil) != tt.created {
				t.Errorf("%s: command ran = %v, want %v", tt.name, err == nil, tt.created)
			}
		}
	})
}

// enosysFilter is a classic BPF seccomp program, in the binary form bwrap
// --seccomp reads, that fails landlock_create_ruleset with ENOSYS and allows
// everything else.
func enosysFilter(t *testing.T) *os.File {
	t.Helper()
	arch := map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]
	if arch == 0 {
		t.Skipf("no seccomp arch for %s", runtime.GOARCH)
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	prog := []unix.SockFilter{
		{Code: ld, K: 4}, // seccomp_data.arch
		{Code: jeq, K: arch, Jf: 3},
		{Code: ld, K: 0}, // seccomp_data.nr
		{Code: jeq, K: unix.SYS_LANDLOCK_CREATE_RULESET, Jf: 1},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(prog)*int(unsafe.Sizeof(prog[0])))
	file, err := os.CreateTemp(t.TempDir(), "seccomp-*.bpf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	if _, err := file.Write(raw); err != nil {
		t.Fatal(err)
	}
	if _, err := file.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestStage2Argv: the argv the runner builds is what stage 2 reads.
func TestStage2Argv(t *testing.T) {
	c := Config{ABI: 4, Mode: ModeAuto, Writable: []string{"/a b"}, NetworkDeny: true}
	got := strings.Join(c.Command("/proc/self/fd/5", []string{"go", "test"}), "|")
	want := "/proc/self/fd/5|__stage2|abi=4|fs=7fff|net=3|scope=0|rule=d,,/|rule=7fff,e,/a b|rule=4002,i,/dev/null|rule=4002,i,/dev/zero|" +
		"rule=4002,i,/dev/full|rule=4002,i,/dev/tty|rule=4002,i,/dev/ptmx|rule=4002,i,/dev/pts|rule=7fff,i,/dev/shm|--|go|test"
	if got != want {
		t.Errorf("Command = %q, want %q", got, want)
	}
}
