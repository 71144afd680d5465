package seatbelt_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seatbelt"
)

// BenchmarkRender renders the macOS profile for the policy a project gets
// by default, and with n extra writable roots and n hidden paths. Render is
// pure, so this runs on every OS. ns/path is ns/op divided by the number of
// paths in the policy.
func BenchmarkRender(b *testing.B) {
	b.Run("typical", func(b *testing.B) { benchRender(b, 0) })
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) { benchRender(b, n) })
	}
}

func benchRender(b *testing.B, n int) {
	p, protected := renderPolicy(n)
	prof, err := seatbelt.Render(p, protected)
	if err != nil {
		b.Fatal(err)
	}
	if len(prof.Params) < len(p.Writable)+len(p.Hidden) || !strings.Contains(prof.Text, "(deny network*") {
		b.Fatalf("Render: %d params for %d roots and %d hidden paths", len(prof.Params), len(p.Writable), len(p.Hidden))
	}
	paths := len(p.Writable) + len(p.Hidden) + len(protected)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := seatbelt.Render(p, protected); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(paths), "ns/path")
}

// renderPolicy is what Resolve returns on macOS for ~/src/app with the
// default roots, hidden and protected paths, plus n writable roots and n
// hidden paths.
func renderPolicy(n int) (*policy.Policy, []string) {
	const home = "/Users/u"
	proj := home + "/src/app"
	p := &policy.Policy{
		Cwd: proj, Home: home, Network: policy.NetworkDeny,
		Writable: []policy.Root{
			{Path: "/private/tmp", Source: policy.SourceDefault},
			{Path: "/private/var/tmp", Source: policy.SourceDefault},
			{Path: "/private/var/folders/xy/T", Source: policy.SourceTmpDir},
			{Path: proj, Source: policy.SourceCwd},
		},
	}
	for _, h := range []string{".ssh", ".aws", ".gnupg", ".azure", ".config/gcloud", ".kube", ".docker/config.json",
		".netrc", ".credentials.json", ".config/zsandbox", ".config/gh", ".git-credentials", ".pypirc",
		".cargo/credentials", ".cargo/credentials.toml", "Library/Keychains"} {
		p.Hidden = append(p.Hidden, policy.Hidden{Path: home + "/" + h, Exists: true, IsDir: !strings.Contains(h, ".json")})
	}
	protected := []string{proj + "/.git/hooks", proj + "/.git/config"}
	for i := 0; i < n; i++ {
		p.Writable = append(p.Writable, policy.Root{Path: fmt.Sprintf("%s/w/%04d", home, i), Source: policy.SourceFlag})
		p.Hidden = append(p.Hidden, policy.Hidden{Path: fmt.Sprintf("%s/h/%04d", home, i), Exists: true, IsDir: true})
	}
	return p, protected
}
