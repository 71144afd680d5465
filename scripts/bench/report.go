//go:build linux

package main

import (
	"fmt"
	"io"
	"strings"
)

// writeReport prints the markdown report: the machine, a table per
// command, and the process targets.
func writeReport(w io.Writer, m machine, suites []*suite, notes []string) {
	fmt.Fprintf(w, "Measured %s on %d × %s, Linux %s, %s, Landlock ABI %d; harness %s.\n",
		m.date, m.nproc, m.cpu, m.kernel, m.bwrap, m.landlockABI, m.goHarness)
	fmt.Fprintf(w, "Binary: `%s` (built with %s).\n", m.version, m.goBinary)
	fmt.Fprintf(w, "%d measured rounds after %d warm-up rounds, then %d rounds of peak-RSS runs (%s in all); load average %s before, %s after.\n\n",
		m.runs, m.warmup, m.rssRuns, m.elapsed.Round(1e9), m.load[0], m.load[1])
	for _, s := range suites {
		writeSuite(w, s)
	}
	fmt.Fprintln(w, "- Times are wall-clock, from fork to exit and the end of the output (captured through pipes), in ms. "+
		"÷ (b) is, per round, the variant's time over the bwrap line's time in the same round; the median of those ratios, with p10–p90.")
	fmt.Fprintln(w, "- Peak RSS is ru_maxrss of the process started (zsandbox's own, not bwrap's or the command's), from separate runs "+
		"through a helper; a value cannot fall below the helper's floor, which is what the bare `true` row shows.")
	for _, n := range notes {
		fmt.Fprintf(w, "- %s\n", n)
	}
	fmt.Fprintln(w)
	writeTargets(w, suites)
}

func writeSuite(w io.Writer, s *suite) {
	fmt.Fprintf(w, "### `%s`\n\n", shellQuote(s.argv))
	fmt.Fprintln(w, "| | how | median | p10 | p90 | min | max | ÷ (b), median [p10–p90] | peak RSS, median (max) |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|")
	base := s.samples[index(s, "b")]
	for i, v := range s.variants {
		t := summarize(millis(s.samples[i]))
		r := summarize(ratios(s.samples[i], base))
		fmt.Fprintf(w, "| (%s) | %s | %.2f ms | %.2f | %.2f | %.2f | %.2f | %.2f× [%.2f–%.2f] | %s |\n",
			v.key, v.label, t.median, t.p10, t.p90, t.min, t.max, r.median, r.p10, r.p90, rssCell(s.rss[i]))
	}
	fmt.Fprintln(w)
}

// writeTargets checks the process targets on the `true` suite (ratios) and
// on every suite (zsandbox's peak RSS).
func writeTargets(w io.Writer, suites []*suite) {
	fmt.Fprintln(w, "| target | measured | met |")
	fmt.Fprintln(w, "|---|---|---|")
	s := suites[0]
	base := s.samples[index(s, "b")]
	for _, t := range []struct {
		key, what string
		limit     float64
	}{{"c", "`zsandbox exec --landlock off -- true` ÷ (b)", 1.3}, {"d", "`zsandbox exec -- true` ÷ (b)", 1.6}} {
		r := summarize(ratios(s.samples[index(s, t.key)], base)).median
		fmt.Fprintf(w, "| %s ≤ %.1f× (median ratio) | %.2f× | %s |\n", t.what, t.limit, r, yesNo(r <= t.limit))
	}
	peak := 0.0
	for _, s := range suites {
		for i, v := range s.variants {
			if v.rss && v.key != "a" {
				peak = max(peak, summarize(mebibytes(s.rss[i])).max)
			}
		}
	}
	fmt.Fprintf(w, "| peak RSS of the zsandbox process ≤ 15 MiB (max over every zsandbox run) | %.1f MiB | %s |\n", peak, yesNo(peak <= 15))
}

func rssCell(kib []int64) string {
	if len(kib) == 0 {
		return "–"
	}
	m := summarize(mebibytes(kib))
	return fmt.Sprintf("%.1f MiB (%.1f)", m.median, m.max)
}

func index(s *suite, key string) int {
	for i, v := range s.variants {
		if v.key == key {
			return i
		}
	}
	panic("no variant " + key)
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func shellQuote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if strings.ContainsAny(a, " '\">|&;$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
