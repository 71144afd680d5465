package landlock

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReadRulesKernel applies ReadRules for real: the hidden directory and
// file cannot be read, their siblings and the rest of the machine can.
func TestReadRulesKernel(t *testing.T) {
	requireLandlock(t, 1)
	eachIdentity(t, func(t *testing.T, id identity) {
		f := newFixture(t, id)
		home := filepath.Join(f.base, "home")
		f.mkdir(filepath.Join(home, ".ssh"))
		f.mkdir(filepath.Join(home, "proj"))
		f.write(filepath.Join(home, ".ssh", "id_rsa"), "secret\n")
		f.write(filepath.Join(home, ".netrc"), "secret\n")
		f.write(filepath.Join(home, ".netrc-old"), "fine\n")
		f.write(filepath.Join(home, "proj", "main.go"), "fine\n")
		probes := map[string]string{
			"read:" + home + "/.ssh/id_rsa":  "EACCES",
			"list:" + home + "/.ssh":         "EACCES",
			"read:" + home + "/.netrc":       "EACCES",
			"list:" + home:                   "EACCES", // a cut directory
			"read:" + home + "/.netrc-old":   "ok",
			"read:" + home + "/proj/main.go": "ok",
			"list:" + home + "/proj":         "ok",
			"read:" + f.outside + "/file":    "ok",
			"read:/etc/passwd":               "ok",
			"create:" + home + "/proj/new":   "EACCES", // no write rule at all
		}
		args := []string{home + "/.ssh", home + "/.netrc", "--"}
		for p := range probes {
			args = append(args, p)
		}
		r := run(t, f.command(testBinary(t), args, helperEnv+"=readrules"))
		if r.code != 0 {
			t.Fatalf("helper exit %d: %s", r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != len(probes) {
			t.Fatalf("helper printed:\n%s", r.stdout)
		}
		for _, line := range lines {
			p, got, _ := strings.Cut(line, " -> ")
			if got != probes[p] {
				t.Errorf("%s = %s, want %s", p, got, probes[p])
			}
		}
	})
}
