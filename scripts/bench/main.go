//go:build linux

// Command bench times zsandbox as whole processes against the bubblewrap
// line it runs, and prints a markdown report (docs/benchmarks.md).
//
// For each command it runs, interleaved round by round so that drift in the
// machine's load cancels out of the ratios:
//
//	(a)  the bare command
//	(b)  the exact bwrap line zsandbox runs, options on bwrap's command line
//	(b') the same line passed through --args FD, as zsandbox passes it
//	(c)  zsandbox exec --landlock off -- CMD
//	(d)  zsandbox exec -- CMD (Landlock stage 2 on)
//	(e)  zsandbox exec --backend landlock -- CMD, when it runs here (the
//	     flag is new, and the backend refuses root)
//
// Every run must exit 0 and print what the bare command prints; a failing
// run stops the benchmark. Use scripts/bench.sh, which builds bin/zsandbox.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == rssChildArg {
		rssChild(os.Args[2:]) // before anything else grows the helper's RSS
	}
	if len(os.Args) > 1 && os.Args[1] == "scenarios" {
		scenariosMain(os.Args[2:])
		return
	}
	cfg := config{}
	flag.StringVar(&cfg.bin, "bin", "bin/zsandbox", "the zsandbox binary")
	flag.IntVar(&cfg.runs, "runs", 200, "measured rounds (each runs every variant of every command once)")
	flag.IntVar(&cfg.warmup, "warmup", 10, "rounds run first and discarded")
	flag.IntVar(&cfg.rssRuns, "rss-runs", 30, "rounds of peak-RSS runs, after the timed rounds")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the temporary project directory")
	flag.Parse()
	if err := run(cfg); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

// scenariosMain is "bench scenarios [-runs N] [-warmup N] BIN...": see
// scenarios.go.
func scenariosMain(args []string) {
	fl := flag.NewFlagSet("scenarios", flag.ExitOnError)
	runs := fl.Int("runs", 40, "measured rounds (each runs every binary in every scenario once)")
	warmup := fl.Int("warmup", 3, "rounds run first and discarded")
	fl.Parse(args)
	bins := fl.Args()
	for i, b := range bins {
		abs, err := absBinary(b)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: %v\n", err)
			os.Exit(1)
		}
		bins[i] = abs
	}
	if len(bins) == 0 || *runs < 1 || *warmup < 0 {
		fmt.Fprintln(os.Stderr, "usage: bench scenarios [-runs N] [-warmup N] ZSANDBOX_BINARY...")
		os.Exit(2)
	}
	if err := runScenarios(bins, *runs, *warmup); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		os.Exit(1)
	}
}

type config struct {
	bin                   string
	runs, warmup, rssRuns int
	keep                  bool
}

func run(cfg config) error {
	if cfg.runs < 1 || cfg.warmup < 0 || cfg.rssRuns < 1 {
		return fmt.Errorf("-runs and -rss-runs must be at least 1, -warmup at least 0")
	}
	bin, err := absBinary(cfg.bin)
	if err != nil {
		return err
	}
	proj, cleanup, err := makeProject()
	if err != nil {
		return err
	}
	if cfg.keep {
		fmt.Fprintf(os.Stderr, "bench: keeping %s\n", proj)
	} else {
		defer cleanup()
	}
	env := runEnv{bin: bin, dir: proj}
	load0 := loadAvg()
	start := time.Now()
	suites, notes, err := prepare(env)
	if err != nil {
		return err
	}
	defer closeSuites(suites)
	if err := verify(env, suites); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench: %d warm-up and %d measured rounds of %d runs each\n", cfg.warmup, cfg.runs, runsPerRound(suites))
	if err := rounds(suites, cfg.warmup, false); err != nil {
		return err
	}
	if err := rounds(suites, cfg.runs, true); err != nil {
		return err
	}
	if err := rssRounds(suites, cfg.rssRuns); err != nil {
		return err
	}
	m := machineFacts(bin)
	m.load = [2]string{load0, loadAvg()}
	m.elapsed = time.Since(start)
	m.runs, m.warmup, m.rssRuns = cfg.runs, cfg.warmup, cfg.rssRuns
	writeReport(os.Stdout, m, suites, notes)
	return nil
}
