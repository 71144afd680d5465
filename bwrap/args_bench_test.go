package bwrap

import (
	"fmt"
	"testing"

	"github.com/zsandbox/zsandbox/policy"
)

// BenchmarkArgs plans the bwrap argument list: for the policy a project
// gets by default (cwd a git repository, the default roots, a few existing
// credential paths), and for n extra writable roots plus n hidden paths.
// Args is pure; ns/path is ns/op divided by the number of paths planned.
func BenchmarkArgs(b *testing.B) {
	b.Run("typical", func(b *testing.B) { benchArgs(b, typicalPolicy(0)) })
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) { benchArgs(b, typicalPolicy(n)) })
	}
}

func benchArgs(b *testing.B, p *policy.Policy) {
	argv := []string{"git", "status", "--short"}
	want := len(Args(p, argv, Options{Seccomp: true}).Args)
	if want < 2*len(p.Writable)+2*len(p.Protected) {
		b.Fatalf("Args: %d arguments for %d roots and %d protected paths", want, len(p.Writable), len(p.Protected))
	}
	paths := len(p.Writable) + len(p.Hidden) + len(p.Protected)
	b.ReportAllocs()
	for b.Loop() {
		if got := len(Args(p, argv, Options{Seccomp: true}).Args); got != want {
			b.Fatalf("Args: %d arguments, want %d", got, want)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(paths), "ns/path")
}

// typicalPolicy is what Resolve returns for ~/src/app with the default
// roots and protected paths, plus n writable roots and n hidden paths
// (every third hidden path a file, so --ro-bind-data is planned too).
func typicalPolicy(n int) *policy.Policy {
	const home, proj = "/home/u", "/home/u/src/app"
	p := &policy.Policy{
		Cwd: proj, Home: home, Network: policy.NetworkDeny,
		Writable: []policy.Root{
			{Path: "/tmp", Source: policy.SourceDefault},
			{Path: "/var/tmp", Source: policy.SourceDefault},
			{Path: proj, Source: policy.SourceCwd},
		},
		Hidden: []policy.Hidden{
			{Path: home + "/.ssh", Exists: true, IsDir: true},
			{Path: home + "/.aws", Exists: true, IsDir: true},
			{Path: home + "/.config/gcloud"},
			{Path: home + "/.docker/config.json", Exists: true},
			{Path: home + "/.netrc", Exists: true},
			{Path: home + "/.git-credentials"},
		},
		Protected: []policy.Protected{
			{Path: proj + "/.git/config", Root: proj, Exists: true},
			{Path: proj + "/.git/hooks", Root: proj, Exists: true},
		},
	}
	for i := 0; i < n; i++ {
		p.Writable = append(p.Writable, policy.Root{Path: fmt.Sprintf("%s/w/%04d", home, i), Source: policy.SourceFlag})
		p.Hidden = append(p.Hidden, policy.Hidden{Path: fmt.Sprintf("%s/h/%04d", home, i), Exists: true, IsDir: i%3 != 0})
	}
	return p
}
