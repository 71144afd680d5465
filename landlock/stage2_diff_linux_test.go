//go:build cgo

package landlock

import (
	"bytes"
	"encoding/base64"
	"encoding/gob"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// The differential test runs every case through both stage 2s: the C one
// (this test binary, built with cgo: its constructor takes Stage2Arg) and
// the Go one (the same tests built with CGO_ENABLED=0, as zsandbox is built
// without cgo), and requires the same exit status, stdout, stderr and
// effects.

// preExecEnv makes the test binary a launcher: it sets up what the spec in
// the variable asks for and execve's the spec's argv with its env
// verbatim.
const preExecEnv = "ZSANDBOX_STAGE2_PREEXEC"

type preExec struct {
	Argv       []string
	Env        []string
	NofileSoft uint64 // RLIMIT_NOFILE soft limit, if not 0
}

func init() {
	if spec, ok := os.LookupEnv(preExecEnv); ok {
		os.Exit(runPreExec(spec))
	}
}

func runPreExec(spec string) int {
	raw, err := base64.StdEncoding.DecodeString(spec)
	if err != nil {
		return harness.Fatalf("preexec: %v", err)
	}
	var p preExec
	if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&p); err != nil {
		return harness.Fatalf("preexec: %v", err)
	}
	if p.NofileSoft != 0 {
		var lim unix.Rlimit
		unix.Getrlimit(unix.RLIMIT_NOFILE, &lim)
		lim.Cur = p.NofileSoft
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			return harness.Fatalf("preexec: setrlimit: %v", err)
		}
	}
	err = syscall.Exec(p.Argv[0], p.Argv, p.Env)
	return harness.Fatalf("preexec: exec %q: %v", p.Argv[0], err)
}

// goStage2Binary is this package's tests built with CGO_ENABLED=0, beside
// testBinary (so every identity can run it): its stage 2 is the Go one.
func goStage2Binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a second test binary")
	}
	p, err := harness.Build("landlock-nocgo.test", []string{"CGO_ENABLED=0"}, "test", "-c", ".")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// diffCase is one stage-2 run. spec builds the launcher's spec around
// stage2, the stage-2 binary under test; setup runs before each
// implementation on a fresh fixture; effects describes what the run left
// behind (compared too); check states what both must do.
type diffCase struct {
	name    string
	setup   func(f *harness.Fixture)
	spec    func(f *harness.Fixture, stage2 string) preExec
	extra   func(t *testing.T) []*os.File
	effects func(f *harness.Fixture) string
	check   func(t *testing.T, f *harness.Fixture, r harness.Result)
	// normalize rewrites what legitimately differs between the runs
	// (ports, process IDs); fixture paths are "$BASE" already.
	normalize func(string) string
}

// launch runs c's spec as f's identity through the launcher.
func launch(f *harness.Fixture, c diffCase, stage2 string) harness.Result {
	f.T.Helper()
	p := c.spec(f, stage2)
	if p.Env == nil {
		p.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + f.Base}
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(p); err != nil {
		f.T.Fatal(err)
	}
	cmd := f.Command(harness.Binary(f.T), nil)
	cmd.Env = []string{preExecEnv + "=" + base64.StdEncoding.EncodeToString(buf.Bytes())}
	if c.extra != nil {
		cmd.ExtraFiles = c.extra(f.T)
	}
	return harness.Run(f.T, cmd)
}

// TestStage2Implementations: the C and Go stage 2s behave the same on
// every case: exit status, stdout, stderr (every message, byte for byte)
// and what the command could do.
func TestStage2Implementations(t *testing.T) {
	if !cStage2() {
		t.Skip("this build runs the Go stage 2 only")
	}
	impls := []struct{ name, bin string }{{"C", harness.Binary(t)}, {"Go", goStage2Binary(t)}}
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		for _, c := range stage2DiffCases(t) {
			t.Run(c.name, func(t *testing.T) {
				var rs [2]harness.Result
				var effects [2]string
				var fixtures [2]*harness.Fixture
				for i, impl := range impls {
					f := harness.NewFixture(t, id)
					if c.setup != nil {
						c.setup(f)
					}
					rs[i] = launch(f, c, impl.bin)
					if c.effects != nil {
						effects[i] = c.effects(f)
					}
					fixtures[i] = f
					// Fixture paths differ between the runs.
					norm := strings.NewReplacer(f.Base, "$BASE", filepath.Base(f.Base), "$BASENAME", impl.bin, "$STAGE2")
					for _, s := range []*string{&rs[i].Stdout, &rs[i].Stderr, &effects[i]} {
						*s = norm.Replace(*s)
						if c.normalize != nil {
							*s = c.normalize(*s)
						}
					}
				}
				t.Logf("exit %d\nstdout %q\nstderr %q\neffects %q", rs[0].Code, rs[0].Stdout, rs[0].Stderr, effects[0])
				if rs[0] != rs[1] || effects[0] != effects[1] {
					t.Errorf("C and Go differ:\nC:  exit %d\n    stdout %q\n    stderr %q\n    effects %q\nGo: exit %d\n    stdout %q\n    stderr %q\n    effects %q",
						rs[0].Code, rs[0].Stdout, rs[0].Stderr, effects[0], rs[1].Code, rs[1].Stdout, rs[1].Stderr, effects[1])
				}
				if c.check != nil {
					for i := range impls {
						c.check(t, fixtures[i], rs[i])
					}
				}
			})
		}
	})
}

// want checks the exit status and output exactly (after "$BASE"
// substitution).
func want(code int, stdout, stderr string) func(*testing.T, *harness.Fixture, harness.Result) {
	return func(t *testing.T, _ *harness.Fixture, r harness.Result) {
		t.Helper()
		if r.Code != code || r.Stdout != stdout || r.Stderr != stderr {
			t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", r.Code, r.Stdout, r.Stderr, code, stdout, stderr)
		}
	}
}

// wantCode checks the exit status only.
func wantCode(code int) func(*testing.T, *harness.Fixture, harness.Result) {
	return func(t *testing.T, _ *harness.Fixture, r harness.Result) {
		t.Helper()
		if r.Code != code {
			t.Errorf("exit %d, want %d\nstdout %q\nstderr %q", r.Code, code, r.Stdout, r.Stderr)
		}
	}
}

func devNulls(n int) func(t *testing.T) []*os.File {
	return func(t *testing.T) []*os.File {
		var fs []*os.File
		for range n {
			f, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			fs = append(fs, f)
		}
		return fs
	}
}

// listFiles describes what is under the fixture's root and outside
// directories.
func listFiles(f *harness.Fixture) string {
	var out []string
	for _, d := range []string{f.Root, f.Outside, "/dev/shm"} {
		filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			if err != nil || p == d || (d == "/dev/shm" && !strings.Contains(p, "zs-diff-"+filepath.Base(f.Base))) {
				return nil
			}
			s := p + " " + fi.Mode().String()
			if fi.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				s += " " + strconv.Quote(string(b))
			}
			out = append(out, s)
			return nil
		})
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func stage2DiffCases(t *testing.T) []diffCase {
	// planned is the head of the ruleset planned for this kernel (with
	// read and execute everywhere), and root
	// the rule of a writable root, for hand-written stage-2 lines.
	planned := []string{"abi=" + strconv.Itoa(hostABI), "fs=" + hexText(uint64(fsAt(hostABI))),
		"net=" + hexText(uint64(netAt(hostABI))), "scope=" + hexText(uint64(scopeAt(hostABI))), "rule=d,,/"}
	root := func(path string) string { return "rule=" + hexText(uint64(fsAt(hostABI))) + ",e," + path }
	auto := func(f *harness.Fixture) Config {
		return Config{ABI: hostABI, Mode: ModeAuto, Writable: []string{f.Root}, NetworkDeny: true}
	}
	// cmd runs argv under the usual Config.
	cmd := func(argv ...string) func(f *harness.Fixture, stage2 string) preExec {
		return func(f *harness.Fixture, stage2 string) preExec { return preExec{Argv: auto(f).Command(stage2, argv)} }
	}
	// withPath is cmd with PATH set (or unset: "").
	withPath := func(path string, argv ...string) func(f *harness.Fixture, stage2 string) preExec {
		return func(f *harness.Fixture, stage2 string) preExec {
			env := []string{"HOME=" + f.Base}
			if path != "" {
				env = append(env, "PATH="+strings.ReplaceAll(path, "$BASE", f.Base))
			}
			return preExec{Argv: auto(f).Command(stage2, argv), Env: env}
		}
	}
	// raw runs a hand-written stage-2 line.
	raw := func(args ...string) func(f *harness.Fixture, stage2 string) preExec {
		return func(f *harness.Fixture, stage2 string) preExec {
			argv := []string{stage2, Stage2Arg}
			for _, a := range args {
				argv = append(argv, strings.ReplaceAll(a, "$BASE", f.Base))
			}
			return preExec{Argv: argv}
		}
	}
	tools := func(f *harness.Fixture) {
		bin := filepath.Join(f.Base, "bin")
		f.Mkdir(filepath.Join(bin, "zsdir"))
		f.Write(filepath.Join(bin, "zstool"), "#!/bin/sh\necho never\n") // not executable
		f.Write(filepath.Join(bin, "noshebang"), "echo script ran \"$0\" \"$@\"\n")
		f.Write(filepath.Join(f.Base, "zslocal"), "#!/bin/sh\necho local\n")
		os.Chmod(filepath.Join(bin, "noshebang"), 0o755)
		os.Chmod(filepath.Join(f.Base, "zslocal"), 0o755)
		os.Symlink("loop", filepath.Join(bin, "loop"))
		// A directory only root can search, with an executable inside.
		locked := filepath.Join(f.Base, "locked")
		os.MkdirAll(filepath.Join(locked, "sub"), 0o755)
		os.WriteFile(filepath.Join(locked, "zshidden"), []byte("#!/bin/sh\necho hidden\n"), 0o755)
		os.Chown(locked, 0, 0)
		os.Chmod(locked, 0o700)
	}
	binPATH := "$BASE/bin:/usr/bin:/bin"
	bwrap := func(f *harness.Fixture, filter bool, c Config, stage2 string, argv ...string) []string {
		b := harness.Bwrap(t)
		args := []string{b, "--dev-bind", "/", "/"}
		if filter {
			args = append(args, "--seccomp", "3")
		}
		return append(args, c.Command(stage2, argv)...)
	}

	cases := []diffCase{
		{name: "success prints nothing", spec: cmd("true"), check: want(0, "", "")},
		{name: "exit status and output pass through", spec: cmd("sh", "-c", "echo out; echo err >&2; exit 7"), check: want(7, "out\n", "err\n")},
		{name: "death by signal passes through", spec: cmd("sh", "-c", "kill -TERM $$"), check: want(128+15, "", "")},
		{name: "not found", spec: cmd("no-such-command-zs"), check: want(127, "", "zsandbox: error: no-such-command-zs: command not found\n")},
		{name: "not found, bytes that are not UTF-8", spec: cmd("zs\xff\xfe\n\u200b"), check: wantCode(127)},
		{name: "empty name", spec: cmd(""), check: want(127, "", "zsandbox: error: \"\": command not found\n")},
		{name: "missing path", spec: cmd("/nonexistent-zs/x"), check: want(127, "", "zsandbox: error: /nonexistent-zs/x: no such file or directory\n")},
		{name: "not a directory", spec: cmd("/etc/passwd/x"), check: want(127, "", "zsandbox: error: /etc/passwd/x: not a directory\n")},
		{name: "not executable by path", setup: tools, spec: func(f *harness.Fixture, s string) preExec {
			return preExec{Argv: auto(f).Command(s, []string{f.Base + "/bin/zstool"})}
		}, check: want(126, "", "zsandbox: error: $BASE/bin/zstool: cannot execute: permission denied\n")},
		{name: "not executable on PATH", setup: tools, spec: withPath(binPATH, "zstool"), check: want(126, "", "zsandbox: error: zstool: cannot execute: permission denied\n")},
		{name: "directory by path", setup: tools, spec: func(f *harness.Fixture, s string) preExec {
			return preExec{Argv: auto(f).Command(s, []string{f.Base + "/bin/zsdir"})}
		}, check: want(126, "", "zsandbox: error: $BASE/bin/zsdir: cannot execute: permission denied\n")},
		{name: "directory on PATH", setup: tools, spec: withPath(binPATH, "zsdir"), check: want(126, "", "zsandbox: error: zsdir: cannot execute: permission denied\n")},
		{name: "symlink loop", setup: tools, spec: func(f *harness.Fixture, s string) preExec {
			return preExec{Argv: auto(f).Command(s, []string{f.Base + "/bin/loop"})}
		}, check: want(126, "", "zsandbox: error: $BASE/bin/loop: cannot execute: too many levels of symbolic links\n")},
		{name: "name too long", spec: withPath("/usr/bin:/bin", strings.Repeat("z", 300)), check: want(126, "", "zsandbox: error: /usr/bin/"+strings.Repeat("z", 300)+": cannot execute: file name too long\n")},
		{name: "script without #! on PATH runs with sh", setup: tools, spec: withPath(binPATH, "noshebang", "a b", "--"), check: want(0, "script ran $BASE/bin/noshebang a b --\n", "")},
		{name: "script without #! by path", setup: tools, spec: func(f *harness.Fixture, s string) preExec {
			return preExec{Argv: auto(f).Command(s, []string{f.Base + "/bin/noshebang", "x"})}
		}, check: want(0, "script ran $BASE/bin/noshebang x\n", "")},
		{name: "not in the cwd without an empty PATH entry", setup: tools, spec: withPath("/usr/bin:/bin", "zslocal"), check: wantCode(127)},
		{name: "empty PATH entry is the cwd", setup: tools, spec: withPath("/usr/bin::/bin", "zslocal"), check: want(0, "local\n", "")},
		{name: "trailing empty PATH entry is the cwd", setup: tools, spec: withPath("/usr/bin:", "zslocal"), check: want(0, "local\n", "")},
		{name: "PATH entries that are files or missing are skipped", spec: withPath("/etc/passwd:/nonexistent-zs:/usr/bin:/bin", "true"), check: want(0, "", "")},
		{name: "unset PATH is /bin:/usr/bin", spec: withPath("", "sh", "-c", "echo ran; env | grep -c PATH="), check: want(1, "ran\n0\n", "")},
		{name: "unsearchable PATH directory hides nothing", setup: tools, spec: withPath("$BASE/locked:/usr/bin:/bin", "zshidden"),
			check: func(t *testing.T, f *harness.Fixture, r harness.Result) {
				if f.ID.UID == 0 {
					want(0, "hidden\n", "")(t, f, r) // root searches anything
				} else {
					want(127, "", "zsandbox: error: zshidden: command not found\n")(t, f, r)
				}
			}},
		{name: "unsearchable PATH directory, found later", setup: tools, spec: withPath("$BASE/locked:/usr/bin:/bin", "true"), check: want(0, "", "")},
		{name: "first PATH wins", spec: func(f *harness.Fixture, s string) preExec {
			return preExec{Argv: auto(f).Command(s, []string{"sh", "-c", "echo $PATH"}), Env: []string{"PATH=/nonexistent-zs", "PATH=/usr/bin:/bin"}}
		}, check: want(127, "", "zsandbox: error: sh: command not found\n")},
		{name: "arguments pass through", spec: cmd("sh", "-c", `printf '[%s]' "$@"`, "sh", "--", "", "landlock=off", "a\nb", "\xff"), check: want(0, "[--][][landlock=off][a\nb][\xff]", "")},

		// Malformed stage-2 lines: nothing runs.
		{name: "bad: no net", effects: listFiles, spec: raw("abi=7", "fs=1", "--", "touch", "$BASE/root/ran"), check: want(127, "", "zsandbox: error: stage 2: no net= argument; the command did not run\n")},
		{name: "bad: no --", spec: raw(append(planned, "true")...)},
		{name: "bad: no command", spec: raw(append(planned, "--")...)},
		{name: "bad: nothing", spec: raw()},
		{name: "bad: old format", spec: raw("landlock=auto", "abi=7", "network=deny", "unix=deny", "--", "true")},
		{name: "bad: refused plan", spec: raw("refused", "--", "true")},
		{name: "bad: abi", spec: raw("abi=7\xff\u200b\"", "fs=1", "net=0", "scope=0", "--", "true")},
		{name: "bad: fs twice", spec: raw("abi=7", "fs=1", "fs=1", "net=0", "scope=0", "--", "true")},
		{name: "bad: fs not hex", spec: raw("abi=7", "fs=0x1", "net=0", "scope=0", "--", "true")},
		{name: "bad: fs upper case", spec: raw("abi=7", "fs=FF", "net=0", "scope=0", "--", "true")},
		{name: "bad: net too long", spec: raw("abi=7", "fs=1", "net=00000000000000001", "scope=0", "--", "true")},
		{name: "bad: scope empty", spec: raw("abi=7", "fs=1", "net=0", "scope=", "--", "true")},
		{name: "bad: abi 0 with rules", spec: raw("abi=0", "fs=0", "net=0", "scope=0", "rule=1,,/", "--", "true")},
		{name: "bad: abi 0 with rights", spec: raw("abi=0", "fs=1", "net=0", "scope=0", "--", "true")},
		{name: "bad: relative rule", spec: raw(append(planned, "rule=7,e,\xc0\x80rel\U0001F600", "--", "true")...)},
		{name: "bad: rule flags", spec: raw(append(planned, "rule=7,ie,/tmp", "--", "true")...)},
		{name: "bad: rule without flags", spec: raw(append(planned, "rule=7,/tmp", "--", "true")...)},
		{name: "bad: rule access", spec: raw(append(planned, "rule=,e,/tmp", "--", "true")...)},
		{name: "bad: unknown", spec: raw(append(planned, "hide=/x\\y", "--", "true")...)},
		// Building the fence.
		{name: "missing writable root", spec: raw(append(planned, root("$BASE/missing\n\xff\u200b"), "--", "true")...),
			check: want(127, "", "zsandbox: error: landlock: landlock rule for \"$BASE/missing\\x0a\\xff\\xe2\\x80\\x8b\": no such file or directory; the command did not run\n")},
		{name: "missing if-exists rule is skipped", spec: raw(append(planned, "rule=7,i,$BASE/missing", "--", "true")...), check: want(0, "", "")},
		{name: "no-follow rule on a symlink grants nothing", effects: listFiles, setup: func(f *harness.Fixture) {
			os.Symlink(f.Outside, f.Root+"/link")
		}, spec: raw(append(planned, "rule="+hexText(uint64(fsAt(hostABI)))+",n,$BASE/root/link", "--", "sh", "-c", "echo x > $BASE/outside/out")...),
			check: func(t *testing.T, f *harness.Fixture, r harness.Result) {
				if r.Code == 0 {
					t.Errorf("the write through the link succeeded: %s", r.Stderr)
				}
				harness.MustNotExist(t, f.Outside+"/out")
			}},
		{name: "writable root in an unsearchable directory", setup: tools, spec: raw(append(planned, root("$BASE/locked/sub"), "--", "true")...),
			check: func(t *testing.T, f *harness.Fixture, r harness.Result) {
				if f.ID.UID == 0 {
					want(0, "", "")(t, f, r)
				} else {
					want(127, "", "zsandbox: error: landlock: landlock rule for \"$BASE/locked/sub\": permission denied; the command did not run\n")(t, f, r)
				}
			}},
		{name: "roots that are files, devices, / and repeated", effects: listFiles, setup: func(f *harness.Fixture) { f.Write(f.Root+"/file", "old\n") }, spec: raw(
			append(planned, root("$BASE/root/file"), root("/dev/null"), "rule=d,,/", root("$BASE/root"), root("$BASE/root"), "rule=d,,/",
				"--", "sh", "-c", "echo new > $BASE/root/file && echo ok")...)},
		{name: "a root that became a symlink (a swap) refuses", effects: listFiles, setup: func(f *harness.Fixture) {
			f.Mkdir(f.Root + "/real")
			os.Symlink(f.Root+"/real", f.Root+"/swapped")
		}, spec: raw(append(planned, root("$BASE/root/swapped"), "--", "sh", "-c", "echo x > $BASE/root/real/f")...)},
		{name: "many roots", effects: listFiles, setup: func(f *harness.Fixture) {
			for i := range 100 {
				f.Mkdir(f.Root + "/d" + strconv.Itoa(i))
			}
		}, spec: func(f *harness.Fixture, s string) preExec {
			c := Config{ABI: hostABI, Mode: ModeAuto, NetworkDeny: true}
			for i := range 100 {
				c.Writable = append(c.Writable, f.Root+"/d"+strconv.Itoa(i))
			}
			return preExec{Argv: c.Command(s, []string{"sh", "-c", "echo x > " + f.Root + "/d99/f; echo y > " + f.Root + "/f"})}
		}, check: wantCode(2)},
		{name: "landlock off: no fence, no no_new_privs", effects: listFiles, spec: func(f *harness.Fixture, s string) preExec {
			return preExec{Argv: Config{ABI: hostABI, Mode: ModeOff}.Command(s, []string{"sh", "-c", "grep NoNewPrivs /proc/self/status; echo x > " + f.Outside + "/out"})}
		}, check: want(0, "NoNewPrivs:\t0\n", "")},

		{name: "inherited descriptors do not reach the command", extra: devNulls(3), spec: cmd("sh", "-c", "ls /proc/self/fd | sort -n | tr '\\n' ' '"),
			check: want(0, "0 1 2 3 ", "")}, // 3: the directory ls reads
		{name: "RLIMIT_NOFILE as inherited", spec: func(f *harness.Fixture, s string) preExec {
			return preExec{Argv: auto(f).Command(s, []string{"sh", "-c", "ulimit -Sn"}), NofileSoft: 512}
		}, check: want(0, "512\n", "")},
	}

	if ABI() >= 6 {
		ids := regexp.MustCompile(`(connect-tcp|kill):[0-9]+|zsandbox-landlock-test-[0-9a-f]+`)
		cases = append(cases, diffCase{
			name: "the fence holds", effects: listFiles, normalize: func(s string) string { return ids.ReplaceAllString(s, "$1:ID") },
			spec: func(f *harness.Fixture, s string) preExec {
				l := harness.NewListeners(t, f)
				probes := []string{
					"create:" + f.Root + "/new", "create:" + f.Outside + "/new", "write:" + f.Outside + "/file",
					"truncate:" + f.Outside + "/file", "mkdir:" + f.Outside + "/d", "connect-tcp:" + strconv.Itoa(l.TCPPort),
					"bind-tcp:0", "connect-abstract:" + l.Abstract, "kill:" + strconv.Itoa(l.Victim.Process.Pid) + ":15",
					"write:/dev/null", "read:/etc/passwd",
				}
				t.Cleanup(func() {
					if !l.VictimAlive() || l.TCPHits.Load() != 0 || l.UnixHits.Load() != 0 {
						t.Errorf("attack reached outside: victim alive %v, tcp %d, unix %d", l.VictimAlive(), l.TCPHits.Load(), l.UnixHits.Load())
					}
				})
				// The command is the probe helper with Landlock off: it only
				// probes the domain stage 2 put it in.
				command := append([]string{harness.Binary(t)}, Config{ABI: hostABI, Mode: ModeOff}.Command("", probes)[2:]...)
				c := Config{ABI: hostABI, Mode: ModeRequire, Writable: []string{f.Root}, NetworkDeny: true}
				return preExec{Argv: c.Command(s, command), Env: []string{"PATH=/usr/bin:/bin", helperEnv + "=probe"}}
			},
			check: func(t *testing.T, f *harness.Fixture, r harness.Result) {
				for _, p := range []string{"create:$BASE/outside/new -> EACCES", "connect-tcp:", "kill:"} {
					if !strings.Contains(r.Stdout, p) {
						t.Errorf("no %q in\n%s", p, r.Stdout)
					}
				}
				if strings.Contains(r.Stdout, "kill:") && !strings.Contains(r.Stdout, ":15 -> EPERM") {
					t.Errorf("kill was not refused:\n%s", r.Stdout)
				}
			},
		})
	}
	if _, err := exec.LookPath("bwrap"); err == nil && ABI() >= 6 {
		cases = append(cases,
			// A refused plan (require without Landlock) never reaches a
			// stage 2 (the parent refuses, see plan.Render); if it did, it
			// would run nothing.
			diffCase{name: "bwrap: a refused plan runs nothing", extra: func(t *testing.T) []*os.File {
				return []*os.File{harness.ErrnoFilter(t, unix.SYS_LANDLOCK_CREATE_RULESET, unix.ENOSYS)}
			}, effects: listFiles, spec: func(f *harness.Fixture, s string) preExec {
				c := Config{Mode: ModeRequire, Writable: []string{f.Root}, NetworkDeny: true}
				return preExec{Argv: bwrap(f, true, c, s, "touch", f.Root+"/ran")}
			}, check: want(127, "", "zsandbox: error: stage 2: unknown argument \"refused\"; the command did not run\n")},
			// The parent planned Landlock; a filter hides it from the
			// stage 2, which must refuse rather than run without it.
			diffCase{name: "bwrap: auto planned, Landlock hidden by a filter", extra: func(t *testing.T) []*os.File {
				return []*os.File{harness.ErrnoFilter(t, unix.SYS_LANDLOCK_CREATE_RULESET, unix.ENOSYS)}
			}, effects: listFiles, spec: func(f *harness.Fixture, s string) preExec {
				return preExec{Argv: bwrap(f, true, auto(f), s, "sh", "-c", "echo x > "+f.Outside+"/out; grep NoNewPrivs /proc/self/status")}
			}, check: want(127, "", "zsandbox: error: landlock: the sandbox sees Landlock ABI 0, but zsandbox planned the fence for ABI "+strconv.Itoa(hostABI)+
				" (is a seccomp filter refusing landlock_create_ruleset?); the command did not run\n"+
				"zsandbox: hint: let the seccomp profile allow landlock_create_ruleset, landlock_add_rule and landlock_restrict_self, or use --landlock off\n")},
			diffCase{name: "bwrap: landlock_create_ruleset fails", extra: func(t *testing.T) []*os.File {
				return []*os.File{harness.ErrnoFilter(t, unix.SYS_LANDLOCK_ADD_RULE, unix.EPERM)}
			}, spec: func(f *harness.Fixture, s string) preExec {
				return preExec{Argv: bwrap(f, true, auto(f), s, "true")}
			}, check: want(127, "", "zsandbox: error: landlock: landlock rule for \"/\" (execute read_file read_dir): operation not permitted; the command did not run\n")},
			diffCase{name: "bwrap: landlock_restrict_self fails", extra: func(t *testing.T) []*os.File {
				return []*os.File{harness.ErrnoFilter(t, unix.SYS_LANDLOCK_RESTRICT_SELF, unix.E2BIG)}
			}, spec: func(f *harness.Fixture, s string) preExec {
				return preExec{Argv: bwrap(f, true, auto(f), s, "true")}
			}, check: want(127, "", "zsandbox: error: landlock: landlock_restrict_self: too many nested Landlock domains: argument list too long; the command did not run\n")},
			diffCase{name: "bwrap: an errno without a text", extra: func(t *testing.T) []*os.File {
				return []*os.File{harness.ErrnoFilter(t, unix.SYS_LANDLOCK_RESTRICT_SELF, unix.EINVAL)}
			}, spec: func(f *harness.Fixture, s string) preExec {
				return preExec{Argv: bwrap(f, true, auto(f), s, "true")}
			}, check: want(127, "", "zsandbox: error: landlock: landlock_restrict_self: errno 22; the command did not run\n")},
			diffCase{name: "bwrap: no close_range, descriptors still closed", extra: func(t *testing.T) []*os.File {
				return append(devNulls(3)(t), harness.ErrnoFilter(t, unix.SYS_CLOSE_RANGE, unix.ENOSYS)) // 3, 4, 5; the filter on 6
			}, spec: func(f *harness.Fixture, s string) preExec {
				b := harness.Bwrap(t)
				args := []string{b, "--dev-bind", "/", "/", "--seccomp", "6"}
				return preExec{Argv: append(args, auto(f).Command(s, []string{"sh", "-c", "ls /proc/self/fd | sort -n | tr '\\n' ' '"})...)}
			}, check: want(0, "0 1 2 3 ", "")},
			diffCase{name: "bwrap: no close_range and no /proc", extra: func(t *testing.T) []*os.File {
				return []*os.File{harness.ErrnoFilter(t, unix.SYS_CLOSE_RANGE, unix.ENOSYS)}
			}, spec: func(f *harness.Fixture, s string) preExec {
				b := harness.Bwrap(t)
				args := []string{b, "--ro-bind", "/", "/", "--tmpfs", "/proc", "--seccomp", "3"}
				return preExec{Argv: append(args, auto(f).Command(s, []string{"true"})...)}
			}, check: want(127, "", "zsandbox: error: closing inherited descriptors: function not implemented; the command did not run\n")},
			diffCase{name: "bwrap: devices in a fresh /dev", effects: listFiles, spec: func(f *harness.Fixture, s string) preExec {
				b := harness.Bwrap(t)
				shm := "/dev/shm/zs-diff-" + filepath.Base(f.Base)
				probes := []string{"write:/dev/null", "read:/dev/zero", "write:/dev/full", "pty", "create:" + shm,
					"create:" + f.Root + "/new", "create:/dev/zsfile", "mknod:/dev/zsfifo"}
				command := append([]string{harness.Binary(t)}, Config{ABI: hostABI, Mode: ModeOff}.Command("", probes)[2:]...)
				c := Config{ABI: hostABI, Mode: ModeRequire, Writable: []string{f.Root}, NetworkDeny: true}
				args := []string{b, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", f.Root, f.Root,
					"--unshare-all", "--new-session", "--die-with-parent", "--cap-drop", "ALL", "--"}
				return preExec{Argv: append(args, c.Command(s, command)...), Env: []string{"PATH=/usr/bin:/bin", helperEnv + "=probe"}}
			}, check: func(t *testing.T, f *harness.Fixture, r harness.Result) {
				for _, p := range []string{"pty -> ok", "write:/dev/null -> ok", "create:/dev/zsfile -> EACCES", "mknod:/dev/zsfifo -> EACCES"} {
					if !strings.Contains(r.Stdout, p) {
						t.Errorf("no %q in\n%s", p, r.Stdout)
					}
				}
			}},
		)
	}
	return cases
}
