//go:build linux

package main

import (
	"math"
	"slices"
	"time"
)

// summary describes one sample set.
type summary struct {
	median, p10, p90, min, max float64
}

func summarize(xs []float64) summary {
	s := slices.Clone(xs)
	slices.Sort(s)
	return summary{
		median: quantile(s, 0.5), p10: quantile(s, 0.1), p90: quantile(s, 0.9),
		min: s[0], max: s[len(s)-1],
	}
}

// quantile interpolates linearly between the closest ranks of sorted.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

// millis returns the durations of samples in milliseconds.
func millis(samples []sample) []float64 {
	out := make([]float64, len(samples))
	for i, s := range samples {
		out[i] = float64(s.d) / float64(time.Millisecond)
	}
	return out
}

// ratios divides each round's time by the baseline's time in that round.
func ratios(samples, base []sample) []float64 {
	out := make([]float64, len(samples))
	for i := range samples {
		out[i] = float64(samples[i].d) / float64(base[i].d)
	}
	return out
}

// mebibytes converts KiB to MiB.
func mebibytes(kib []int64) []float64 {
	out := make([]float64, len(kib))
	for i, k := range kib {
		out[i] = float64(k) / 1024
	}
	return out
}
