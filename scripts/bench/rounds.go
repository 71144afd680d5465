//go:build linux

package main

import (
	"fmt"
	"os"
	"time"
)

// rounds runs n rounds. A round runs every variant of every command once,
// back to back, so each ratio compares runs made seconds apart; the
// variant that goes first rotates from round to round so that no variant
// always follows the same one.
func rounds(suites []*suite, n int, keep bool) error {
	for r := 0; r < n; r++ {
		for _, s := range suites {
			for k := range s.variants {
				i := (k + r) % len(s.variants)
				smp, err := timeRun(s.variants[i])
				if err != nil {
					return fmt.Errorf("round %d, %s %q: %v", r, s.variants[i].label, s.argv, err)
				}
				if keep {
					s.samples[i] = append(s.samples[i], smp)
				}
			}
		}
		if keep && (r+1)%50 == 0 {
			fmt.Fprintf(os.Stderr, "bench: %d/%d rounds\n", r+1, n)
		}
	}
	return nil
}

// timeRun times one process from fork to the end of its output.
func timeRun(v *variant) (sample, error) {
	cmd := v.launch()
	start := time.Now()
	_, err := runChecked(cmd)
	d := time.Since(start)
	v.finish()
	if err != nil {
		return sample{}, err
	}
	return sample{d: d}, nil
}

func runsPerRound(suites []*suite) int {
	n := 0
	for _, s := range suites {
		n += len(s.variants)
	}
	return n
}
