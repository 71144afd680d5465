//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// runEnv is what every variant shares: the zsandbox binary and the
// project directory each run starts in.
type runEnv struct {
	bin, dir string
}

// commands are the measured commands, all run with the project as cwd.
// git status leaves out untracked files: during a run, the placeholders
// of the missing protected paths (.claude, .mcp.json …) are in the
// project (README, what stays open) and would be listed, so its output
// would differ from the bare command's.
var commands = [][]string{
	{"true"},
	{"sh", "-c", "echo hi > f"},
	{"git", "status", "--untracked-files=no"},
}

// A launcher makes the process for one run. It does its preparation
// (building the exec.Cmd, rewinding descriptors) before the clock starts.
type launcher func() *exec.Cmd

// variant is one way of running a command.
type variant struct {
	key, label string
	launch     launcher
	// rss says whether the peak RSS of this process is measured (see
	// rss.go); only when it is started with no extra descriptors.
	rss bool
	// files are descriptors the variant holds open for all its runs.
	files []*os.File
	// after, when set, runs after each run, off the clock.
	after func()
}

// finish runs v.after, if any.
func (v *variant) finish() {
	if v.after != nil {
		v.after()
	}
}

// run runs v once and returns its stdout (see runChecked).
func (v *variant) run() (string, error) {
	defer v.finish()
	return runChecked(v.launch())
}

// suite is one command and every variant of it, with their samples.
type suite struct {
	argv     []string
	variants []*variant
	samples  [][]sample // [variant][round]
	rss      [][]int64  // [variant][run]: peak RSS in KiB (see rss.go)
}

type sample struct {
	d time.Duration
}

// prepare builds a suite per command. The --backend landlock variant is
// dropped, with a note saying why, when it cannot run `true` here.
func prepare(env runEnv) ([]*suite, []string, error) {
	var notes []string
	landlockBackend := true
	if out, err := probeBackend(env); err != nil {
		landlockBackend = false
		notes = append(notes, fmt.Sprintf("(e) `--backend landlock`: not available (`zsandbox exec %s -- true`: %v: %s)", strings.Join(landlockBackendFlags, " "), err, firstLine(out)))
	}
	var suites []*suite
	for _, argv := range commands {
		s, err := newSuite(env, argv, landlockBackend)
		if err != nil {
			closeSuites(suites)
			return nil, nil, err
		}
		suites = append(suites, s)
	}
	return suites, notes, nil
}

func newSuite(env runEnv, argv []string, landlockBackend bool) (*suite, error) {
	bare, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	direct, err := directBwrap(env, argv, false)
	if err != nil {
		return nil, err
	}
	viaArgs, err := directBwrap(env, argv, true)
	if err != nil {
		closeAll(direct.files)
		return nil, err
	}
	s := &suite{argv: argv, variants: []*variant{
		{key: "a", label: "bare command", launch: command(env.dir, nil, append([]string{bare}, argv[1:]...)), rss: true},
		direct, viaArgs,
		{key: "c", label: "zsandbox exec --landlock off", launch: zsandbox(env, argv, "--landlock", "off"), rss: true},
		{key: "d", label: "zsandbox exec (Landlock stage 2)", launch: zsandbox(env, argv), rss: true},
	}}
	if landlockBackend {
		s.variants = append(s.variants, &variant{key: "e", label: "zsandbox exec --backend landlock", launch: zsandbox(env, argv, landlockBackendFlags...), rss: true})
	}
	s.samples = make([][]sample, len(s.variants))
	s.rss = make([][]int64, len(s.variants))
	return s, nil
}

func zsandbox(env runEnv, argv []string, flags ...string) launcher {
	args := append(append(append([]string{env.bin, "exec"}, flags...), "--"), argv...)
	return command(env.dir, nil, args)
}

// command runs args[0] (a path) in dir with the caller's environment,
// stdin from /dev/null and stdout and stderr captured through pipes, as an
// agent or CI job runs a command.
func command(dir string, files []*os.File, args []string) launcher {
	return func() *exec.Cmd {
		return &exec.Cmd{
			Path: args[0], Args: args, Dir: dir, Env: os.Environ(),
			Stdout: new(bytes.Buffer), Stderr: new(bytes.Buffer),
			ExtraFiles: files,
		}
	}
}

// landlockBackendFlags select the Landlock-only backend; --no-warning
// keeps its notice about what it cannot fence off stderr, which every run
// must leave empty.
var landlockBackendFlags = []string{"--backend", "landlock", "--no-warning"}

// probeBackend runs `true` with the Landlock-only backend: an older binary
// does not know the flag, and the backend refuses to run as root.
func probeBackend(env runEnv) ([]byte, error) {
	cmd := exec.Command(env.bin, append(append([]string{"exec"}, landlockBackendFlags...), "--", "true")...)
	cmd.Dir = env.dir
	return cmd.CombinedOutput()
}

func closeSuites(suites []*suite) {
	for _, s := range suites {
		for _, v := range s.variants {
			closeAll(v.files)
		}
	}
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return line
}

// verify runs every variant once and checks it did the command's work:
// exit 0, nothing on stderr, the bare command's stdout, and for the sh case
// the file written in the project directory.
func verify(env runEnv, suites []*suite) error {
	for _, s := range suites {
		var want string
		for i, v := range s.variants {
			out, err := verifyRun(env, s, v)
			if err != nil {
				return fmt.Errorf("%s %q: %v", v.label, s.argv, err)
			}
			if i == 0 {
				want = out
			} else if out != want {
				return fmt.Errorf("%s %q: stdout %q, the bare command printed %q", v.label, s.argv, out, want)
			}
		}
	}
	return nil
}

func verifyRun(env runEnv, s *suite, v *variant) (string, error) {
	if s.argv[0] != "sh" {
		return v.run()
	}
	f := filepath.Join(env.dir, "f")
	if err := os.Remove(f); err != nil {
		return "", err
	}
	out, err := v.run()
	if b, rerr := os.ReadFile(f); err == nil && (rerr != nil || string(b) != "hi\n") {
		err = fmt.Errorf("f holds %q (%v), want \"hi\\n\"", b, rerr)
	}
	return out, err
}

// runChecked runs cmd and returns its stdout; any exit status but 0 or any
// output on stderr is an error.
func runChecked(cmd *exec.Cmd) (string, error) {
	err := cmd.Run()
	stderr := cmd.Stderr.(*bytes.Buffer).String()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr))
	}
	if stderr != "" {
		return "", fmt.Errorf("unexpected stderr: %s", strings.TrimSpace(stderr))
	}
	return cmd.Stdout.(*bytes.Buffer).String(), nil
}
