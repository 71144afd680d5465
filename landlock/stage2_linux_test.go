package landlock

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// stage2 runs the test binary as stage 2 of c with argv, as the identity.
func stage2(f *harness.Fixture, c Config, argv []string, env ...string) harness.Result {
	f.T.Helper()
	return harness.Run(f.T, f.Command(harness.Binary(f.T), c.Command("", argv)[1:], env...))
}

// TestStage2ExitStatus: the command's status passes through; a command that
// cannot run gets 127 (not found) or 126 (found, not executable) and one
// "zsandbox: error:" line; success prints nothing.
func TestStage2ExitStatus(t *testing.T) {
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := harness.NewFixture(t, id)
		bin := filepath.Join(f.Root, "bin")
		f.Mkdir(bin)
		f.Mkdir(filepath.Join(bin, "zsdir"))
		f.Write(filepath.Join(bin, "zstool"), "#!/bin/sh\necho never\n") // 0644: not executable
		f.Write(filepath.Join(bin, "noshebang"), "echo script ran \"$@\"\n")
		os.Chmod(filepath.Join(bin, "noshebang"), 0o755)
		f.Write(filepath.Join(f.Base, "zslocal"), "#!/bin/sh\necho local\n") // in the command's cwd
		os.Chmod(filepath.Join(f.Base, "zslocal"), 0o755)
		c := Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{f.Root}, NetworkDeny: true}
		path := "PATH=" + f.Root + "/empty:" + bin + ":/usr/bin:/bin"
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
			{"missing path", []string{f.Root + "/nope"}, 127, "", "zsandbox: error: " + f.Root + "/nope: no such file or directory\n"},
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
			r := stage2(f, c, tt.argv, env)
			if r.Code != tt.code || r.Stdout != tt.stdout || r.Stderr != tt.stderr {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q",
					tt.name, r.Code, r.Stdout, r.Stderr, tt.code, tt.stdout, tt.stderr)
			}
		}
	})
}

// TestStage2UnsetPath: without PATH, the command is looked up where
// execvp looks (/bin:/usr/bin).
func TestStage2UnsetPath(t *testing.T) {
	f := harness.NewFixture(t, harness.Identity{Name: "self", UID: os.Geteuid(), GID: os.Getegid()})
	cmd := f.Command(harness.Binary(t), Config{ABI: hostABI, Mode: ModeAuto}.Command("", []string{"sh", "-c", "echo ran"})[1:])
	cmd.Env = []string{"HOME=" + f.Base}
	if r := harness.Run(t, cmd); r.Code != 0 || r.Stdout != "ran\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, \"ran\\n\"", r.Code, r.Stdout, r.Stderr)
	}
}

// TestStage2BadArgs: a malformed stage-2 line runs nothing.
func TestStage2BadArgs(t *testing.T) {
	f := harness.NewFixture(t, harness.Identity{Name: "self", UID: os.Geteuid(), GID: os.Getegid()})
	marker := filepath.Join(f.Root, "ran")
	r := harness.Run(t, f.Command(harness.Binary(t), []string{Stage2Arg, "abi=7", "fs=1", "--", "touch", marker}))
	want := "zsandbox: error: stage 2: no net= argument; the command did not run\n"
	if r.Code != 127 || r.Stderr != want {
		t.Errorf("exit %d, stderr %q; want 127, %q", r.Code, r.Stderr, want)
	}
	harness.MustNotExist(t, marker)
}

// TestStage2Confines: the domain survives execve: the command writes inside
// the root but not outside, and cannot signal a process outside.
func TestStage2Confines(t *testing.T) {
	harness.RequireABI(t, hostABI, 6)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := harness.NewFixture(t, id)
		l := harness.NewListeners(t, f)
		c := Config{ABI: hostABI, Mode: ModeRequire, Writable: []string{f.Root}, NetworkDeny: true}
		script := "echo in > " + f.Root + "/in; echo out > " + f.Outside + "/out; echo evil > " + f.Outside + "/file; kill -TERM " +
			strconv.Itoa(l.Victim.Process.Pid)
		r := stage2(f, c, []string{"sh", "-c", script})
		if r.Code == 0 {
			t.Errorf("the attacks all succeeded?\nstderr:\n%s", r.Stderr)
		}
		harness.MustContain(t, filepath.Join(f.Root, "in"), "in\n")
		harness.MustNotExist(t, filepath.Join(f.Outside, "out"))
		harness.MustContain(t, filepath.Join(f.Outside, "file"), "original\n")
		if !l.VictimAlive() {
			t.Errorf("the process outside the sandbox was killed")
		}
	})
}

// TestStage2FromDeletedFD: stage 2 works when run from a descriptor of a
// binary that is deleted and sits in a directory the user cannot search
// (bwrap execs /proc/self/fd/N), and neither that descriptor nor any other
// inherited one reaches the command.
func TestStage2FromDeletedFD(t *testing.T) {
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := harness.NewFixture(t, id)
		hidden, err := os.MkdirTemp(harness.BaseParent(), "zsandbox-landlock-hidden-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(hidden)
		self := filepath.Join(hidden, "zsandbox")
		if err := harness.CopyExecutable(self); err != nil {
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
		c := Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{f.Root}, NetworkDeny: true}

		// The command lists its open descriptors above stderr.
		list := []string{"/bin/sh", "-c", "exec ls -l /proc/self/fd"}
		// Control: run directly, it sees the inherited 3 and 4.
		cmd := f.Command(list[0], list[1:])
		cmd.ExtraFiles = []*os.File{exe, extra}
		if got := harness.LeakedFDs(harness.Run(t, cmd).Stdout); !strings.HasPrefix(got, "3 4 ") {
			t.Fatalf("control: leaked fds %q, want 3 and 4 among them", got)
		}
		cmd = f.Command("/proc/self/fd/3", c.Command("", list)[1:])
		cmd.ExtraFiles = []*os.File{exe, extra}
		r := harness.Run(t, cmd)
		if got := harness.LeakedFDs(r.Stdout); r.Code != 0 || got != "" || r.Stderr != "" {
			t.Errorf("exit %d, leaked fds %q, stderr %q; want 0, none, no message\n%s", r.Code, got, r.Stderr, r.Stdout)
		}
	})
}

// TestStage2InBwrap runs stage 2 the way zsandbox does, inside bwrap with a
// fresh /dev: the device files tools need work (write /dev/null, a pty and
// a terminal ioctl, POSIX shared memory), the writable root is writable, and
// files cannot be planted in /dev, which bwrap leaves writable.
func TestStage2InBwrap(t *testing.T) {
	harness.RequireABI(t, hostABI, 6)
	bwrap := harness.Bwrap(t)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := harness.NewFixture(t, id)
		probes := map[string]string{
			"write:/dev/null": "ok", "read:/dev/zero": "ok", "write:/dev/full": "ok", "pty": "ok",
			"create:/dev/shm/zs": "ok", "create:" + f.Root + "/new": "ok",
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
		command := append([]string{harness.Binary(t)}, Config{ABI: hostABI, Mode: ModeOff}.Command("", list)[2:]...)
		stage2 := Config{ABI: hostABI, Mode: ModeRequire, Writable: []string{f.Root}, NetworkDeny: true}.Command(harness.Binary(t), command)
		args := append([]string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", f.Root, f.Root,
			"--unshare-all", "--new-session", "--die-with-parent", "--cap-drop", "ALL", "--"}, stage2...)
		r := harness.Run(t, f.Command(bwrap, args, helperEnv+"=probe"))
		if r.Code != 0 {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		if len(lines) != len(probes)+2 { // + abi, all threads
			t.Fatalf("helper printed:\n%s", r.Stdout)
		}
		for _, line := range lines {
			p, got, _ := strings.Cut(line, " -> ")
			if want, ok := probes[p]; ok && got != want {
				t.Errorf("%s = %s, want %s", p, got, want)
			}
		}
		harness.MustContain(t, filepath.Join(f.Root, "new"), "x")
	})
}

// TestStage2RequireWithoutLandlock simulates a seccomp filter that hides
// Landlock from the stage 2 after the parent planned it (a --seccomp-profile
// refusing landlock_create_ruleset): an outer filter (bwrap --seccomp) makes
// it fail with ENOSYS. Both require and auto then exit 127 and run nothing
// (auto used to run the command without Landlock while explain said
// "enforced"); and without the filter both run it, so the refusal is the
// filter's doing.
func TestStage2RequireWithoutLandlock(t *testing.T) {
	harness.RequireABI(t, hostABI, 6)
	bwrap := harness.Bwrap(t)
	hidden := "zsandbox: error: landlock: the sandbox sees Landlock ABI 0, but zsandbox planned the fence for ABI " + strconv.Itoa(hostABI) +
		" (is a seccomp filter refusing landlock_create_ruleset?); the command did not run\n" +
		"zsandbox: hint: let the seccomp profile allow landlock_create_ruleset, landlock_add_rule and landlock_restrict_self, or use --landlock off\n"
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := harness.NewFixture(t, id)
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
			marker := filepath.Join(f.Root, "ran"+strconv.Itoa(i))
			c := Config{ABI: hostABI, Mode: tt.mode, Writable: []string{f.Root}, NetworkDeny: true}
			args := []string{"--dev-bind", "/", "/"}
			var files []*os.File
			if tt.filter {
				args = append(args, "--seccomp", "3")
				files = append(files, harness.ENOSYSFilter(t))
			}
			args = append(args, c.Command(harness.Binary(t), []string{"touch", marker})...)
			cmd := f.Command(bwrap, args)
			cmd.ExtraFiles = files
			r := harness.Run(t, cmd)
			if r.Code != tt.code || r.Stderr != tt.stderr {
				t.Errorf("%s: exit %d, stderr %q; want %d, %q", tt.name, r.Code, r.Stderr, tt.code, tt.stderr)
			}
			if _, err := os.Stat(marker); (err == nil) != tt.created {
				t.Errorf("%s: command ran = %v, want %v", tt.name, err == nil, tt.created)
			}
		}
	})
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
