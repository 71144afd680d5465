package policy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/zsandbox/zsandbox/policy"
)

// BenchmarkResolve resolves a policy with n writable roots and n hidden
// paths, all real directories under b.TempDir(), from a cwd that is a git
// repository. Resolve touches the file system (symlinks, git layout, which
// hidden paths exist), so this is the cost exec pays before bwrap starts.
// ns/path is ns/op divided by 2n: flat when the cost grows linearly.
func BenchmarkResolve(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) {
			req, host := resolveFixture(b, n)
			p, err := policy.Resolve(req, host)
			if err != nil {
				b.Fatal(err)
			}
			// The fixture's roots and hidden paths all survive: the work
			// measured is the work asked for.
			if len(p.Writable) < n || len(p.Hidden) < n {
				b.Fatalf("Resolve: %d writable roots, %d hidden paths; want at least %d of each", len(p.Writable), len(p.Hidden), n)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := policy.Resolve(req, host); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n), "ns/path")
		})
	}
}

// resolveFixture lays out base/home, base/home/proj (a git repository, the
// cwd), n writable roots base/w/NNNN and n hidden directories base/h/NNNN.
func resolveFixture(b *testing.B, n int) (policy.Request, policy.Host) {
	b.Helper()
	base, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	home := filepath.Join(base, "home")
	proj := filepath.Join(home, "proj")
	mkdirs(b, filepath.Join(proj, ".git", "hooks"), filepath.Join(home, ".ssh"))
	if err := os.WriteFile(filepath.Join(proj, ".git", "config"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	req := policy.Request{Network: string(policy.NetworkDeny)}
	for i := 0; i < n; i++ {
		w := filepath.Join(base, "w", fmt.Sprintf("%04d", i))
		h := filepath.Join(base, "h", fmt.Sprintf("%04d", i))
		mkdirs(b, w, h)
		req.Writable = append(req.Writable, policy.Path{Path: w, Source: policy.SourceFlag})
		req.Hide = append(req.Hide, h)
	}
	host := policy.Host{Cwd: proj, Home: home, Env: []string{"HOME=" + home, "PATH=/usr/bin:/bin", "TERM=xterm"}}
	return req, host
}

func mkdirs(b *testing.B, dirs ...string) {
	b.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
}
