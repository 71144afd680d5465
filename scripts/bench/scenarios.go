//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/zsandbox/zsandbox/profiles"
)

// The scenarios mode (scripts/bench.sh scenarios) times `zsandbox exec --
// true` where the protected set costs most, for one or more binaries
// (a change against the binary before it), interleaved round by round:
//
//	none  a git project with none of the project-config entries: each
//	      gets a placeholder for the run
//	all   the same project with every entry present: no placeholder, one
//	      read-only mount each
//	home  cwd = $HOME, an empty directory: every start-up file and missing
//	      credential of the home list gets a placeholder
//
// none and all run with the caller's $HOME (the passwd home for
// BENCH_USER, which is root's and so not writable): only the project
// differs.
type scenario struct {
	name, dir, home string
	samples         [][]sample // [binary][round]
}

func runScenarios(bins []string, runs, warmup int) error {
	base, err := os.MkdirTemp("", "zsandbox-scenarios-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(base)
	if base, err = filepath.EvalSymlinks(base); err != nil {
		return err
	}
	scs, err := makeScenarios(base)
	if err != nil {
		return err
	}
	for _, sc := range scs {
		sc.samples = make([][]sample, len(bins))
		for _, bin := range bins {
			if _, err := runChecked(scenarioCmd(bin, sc)); err != nil {
				return fmt.Errorf("%s, %s: %v", sc.name, bin, err)
			}
		}
	}
	load0, start := loadAvg(), time.Now()
	for r := 0; r < warmup+runs; r++ {
		for _, sc := range scs {
			for k := range bins {
				i := (k + r) % len(bins)
				cmd := scenarioCmd(bins[i], sc)
				t0 := time.Now()
				if _, err := runChecked(cmd); err != nil {
					return fmt.Errorf("round %d, %s, %s: %v", r, sc.name, bins[i], err)
				}
				if r >= warmup {
					sc.samples[i] = append(sc.samples[i], sample{d: time.Since(t0)})
				}
			}
		}
	}
	writeScenarios(os.Stdout, bins, scs, runs, warmup, load0, time.Since(start))
	return nil
}

func makeScenarios(base string) ([]*scenario, error) {
	home := os.Getenv("HOME")
	none := &scenario{name: "none", dir: filepath.Join(base, "none"), home: home}
	all := &scenario{name: "all", dir: filepath.Join(base, "all"), home: home}
	h := &scenario{name: "home", dir: filepath.Join(base, "home")}
	h.home = h.dir
	for _, sc := range []*scenario{none, all} {
		if err := writeProject(sc.dir); err != nil {
			return nil, err
		}
	}
	for _, e := range profiles.ProtectedInProject() {
		p := filepath.Join(all.dir, e.Path)
		var err error
		switch {
		case e.Dir:
			err = os.Mkdir(p, 0o755)
		case e.Path == ".gitmodules":
			err = os.WriteFile(p, nil, 0o644)
		default:
			err = os.WriteFile(p, []byte("{}\n"), 0o644)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := os.Mkdir(h.dir, 0o755); err != nil {
		return nil, err
	}
	return []*scenario{none, all, h}, nil
}

func scenarioCmd(bin string, sc *scenario) *exec.Cmd {
	cmd := command(sc.dir, nil, []string{bin, "exec", "--", "true"})()
	cmd.Env = append(os.Environ(), "HOME="+sc.home)
	return cmd
}

func writeScenarios(w io.Writer, bins []string, scs []*scenario, runs, warmup int, load0 string, elapsed time.Duration) {
	fmt.Fprintf(w, "`exec -- true`, %d rounds after %d warm-up rounds, interleaved (%s); load average %s before, %s after.\n\n",
		runs, warmup, elapsed.Round(time.Second), load0, loadAvg())
	fmt.Fprintln(w, "| scenario | binary | placeholders | mounts | median | p10 | p90 | min | ÷ first binary, median [p10–p90] |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|")
	for _, sc := range scs {
		for i, bin := range bins {
			t := summarize(millis(sc.samples[i]))
			r := summarize(ratios(sc.samples[i], sc.samples[0]))
			ph, mounts := planSize(bin, sc)
			fmt.Fprintf(w, "| %s | %s | %s | %s | %.2f ms | %.2f | %.2f | %.2f | %.2f× [%.2f–%.2f] |\n",
				sc.name, filepath.Base(bin), ph, mounts, t.median, t.p10, t.p90, t.min, r.median, r.p10, r.p90)
		}
	}
	fmt.Fprintln(w)
}

// planSize counts, from explain, the placeholders a run makes and the
// mounts bwrap does for it (its bind, tmpfs and data options).
func planSize(bin string, sc *scenario) (placeholders, mounts string) {
	ex := func(args ...string) string {
		cmd := scenarioCmd(bin, sc)
		cmd.Args = append([]string{bin, "explain"}, append(args, "--", "true")...)
		cmd.Stdout = new(bytes.Buffer)
		if cmd.Run() != nil {
			return ""
		}
		return cmd.Stdout.(*bytes.Buffer).String()
	}
	ph := strings.Count(ex(), "a placeholder keeps it")
	n := 0
	for _, l := range strings.Split(ex("--format", "bwrap"), "\n") {
		switch l {
		case "--bind", "--ro-bind", "--bind-fd", "--ro-bind-fd", "--tmpfs", "--ro-bind-data", "--dev", "--proc":
			n++
		}
	}
	return fmt.Sprint(ph), fmt.Sprint(n)
}
