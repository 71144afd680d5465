// Package benchpair times two ways of doing the same thing in one
// benchmark, interleaved round by round (a machine's noise then hits both
// alike), and reports each one's median in milliseconds and their ratio.
package benchpair

import (
	"sort"
	"testing"
	"time"
)

// Run times ours and theirs once per round; the metrics are
// NAME-ms (median of ours), OTHER-ms (median of theirs) and ratio.
func Run(b *testing.B, name string, ours func(), other string, theirs func()) {
	var a, c []time.Duration
	for b.Loop() {
		t := time.Now()
		ours()
		a = append(a, time.Since(t))
		t = time.Now()
		theirs()
		c = append(c, time.Since(t))
	}
	ma, mc := median(a), median(c)
	b.ReportMetric(ms(ma), name+"-ms")
	b.ReportMetric(ms(mc), other+"-ms")
	if mc > 0 {
		b.ReportMetric(float64(ma)/float64(mc), "ratio")
	}
	b.ReportMetric(0, "ns/op") // the pair's total says nothing
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
