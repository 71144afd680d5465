package alone

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// TestReadRulesKernel applies ReadRules for real: the hidden directory and
// file cannot be read, their siblings and the rest of the machine can.
func TestReadRulesKernel(t *testing.T) {
	harness.RequireABI(t, hostABI, 1)
	harness.Each(t, func(t *testing.T, id harness.Identity) {
		f := harness.NewFixture(t, id)
		home := filepath.Join(f.Base, "home")
		f.Mkdir(filepath.Join(home, ".ssh"))
		f.Mkdir(filepath.Join(home, "proj"))
		f.Write(filepath.Join(home, ".ssh", "id_rsa"), "secret\n")
		f.Write(filepath.Join(home, ".netrc"), "secret\n")
		f.Write(filepath.Join(home, ".netrc-old"), "fine\n")
		f.Write(filepath.Join(home, "proj", "main.go"), "fine\n")
		probes := map[string]string{
			"read:" + home + "/.ssh/id_rsa":  "EACCES",
			"list:" + home + "/.ssh":         "EACCES",
			"read:" + home + "/.netrc":       "EACCES",
			"list:" + home:                   "EACCES", // a cut directory
			"read:" + home + "/.netrc-old":   "ok",
			"read:" + home + "/proj/main.go": "ok",
			"list:" + home + "/proj":         "ok",
			"read:" + f.Outside + "/file":    "ok",
			"read:/etc/passwd":               "ok",
			"create:" + home + "/proj/new":   "EACCES", // no write rule at all
		}
		args := []string{home + "/.ssh", home + "/.netrc", "--"}
		for p := range probes {
			args = append(args, p)
		}
		r := harness.Run(t, f.Command(harness.Binary(t), args, helperEnv+"=readrules"))
		if r.Code != 0 {
			t.Fatalf("helper exit %d: %s", r.Code, r.Stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		if len(lines) != len(probes) {
			t.Fatalf("helper printed:\n%s", r.Stdout)
		}
		for _, line := range lines {
			p, got, _ := strings.Cut(line, " -> ")
			if got != probes[p] {
				t.Errorf("%s = %s, want %s", p, got, probes[p])
			}
		}
	})
}
