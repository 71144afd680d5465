package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// TestWritesOutsideRootsFail tries every way we know to write outside the
// writable roots and checks the host afterwards.
func TestWritesOutsideRootsFail(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		etcTarget := "/etc/zsandbox-e2e-" + harness.RandHex(4)
		outFile := filepath.Join(e.outside, "file")
		if err := os.Symlink(outFile, filepath.Join(e.proj, "hostlink")); err != nil {
			t.Fatal(err)
		}
		e.chownAll()
		cases := []struct{ name, script, mustNotExist string }{
			{"etc", "echo x > " + etcTarget, etcTarget},
			{"home not a root", "echo x > $HOME/planted", filepath.Join(e.home, "planted")},
			{"symlink planted on host", "echo evil > hostlink", ""},
			{"symlink made inside", "ln -s " + outFile + " mylink && echo evil > mylink", ""},
			{"dangling symlink", "ln -s " + e.outside + "/new dl && echo evil > dl", filepath.Join(e.outside, "new")},
			{"proc self root", "echo evil > /proc/self/root" + outFile, ""},
			{"dotdot", "echo evil > ../../outside/file", ""},
			{"hard link then write", "ln " + outFile + " hard && echo evil > hard", ""},
			{"touch -d", "touch -d 2001-01-01 " + outFile, ""},
			{"chmod", "chmod 777 " + outFile, ""},
			{"mkdir outside", "mkdir " + e.outside + "/newdir", filepath.Join(e.outside, "newdir")},
		}
		before, _ := os.Stat(outFile)
		for _, c := range cases {
			r := e.sh(c.script)
			mustFail(t, r, c.name)
			if c.mustNotExist != "" {
				harness.MustNotExist(t, c.mustNotExist)
			}
		}
		harness.MustContain(t, outFile, "original\n")
		after, _ := os.Stat(outFile)
		if !after.ModTime().Equal(before.ModTime()) || after.Mode() != before.Mode() {
			t.Errorf("outside file metadata changed: %v %v -> %v %v", before.ModTime(), before.Mode(), after.ModTime(), after.Mode())
		}
	})
}

// TestMoveOutOfCwdFails: mv from a writable root to a read-only place must
// not remove the source or create the destination.
func TestMoveOutOfCwdFails(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.write(filepath.Join(e.proj, "keep"), "data\n")
		e.chownAll()
		r := e.sh("mv keep $HOME/moved")
		mustFail(t, r, "mv out of cwd")
		harness.MustContain(t, filepath.Join(e.proj, "keep"), "data\n")
		harness.MustNotExist(t, filepath.Join(e.home, "moved"))
	})
}

// TestCredentialsHidden reads each default hidden path every way we know.
func TestCredentialsHidden(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		if err := os.Symlink(filepath.Join(e.home, ".ssh", "id_rsa"), filepath.Join(e.proj, "key")); err != nil {
			t.Fatal(err)
		}
		e.chownAll()
		for _, f := range credentialFiles {
			for _, path := range []string{
				"$HOME/" + f,
				"/proc/self/root" + e.home + "/" + f,
				"../" + f,
				e.proj + "/../" + f,
			} {
				r := e.sh("cat " + path)
				mustFail(t, r, "cat "+path)
				assertNoSecret(t, e, r, "cat "+path)
			}
		}
		for _, script := range []string{
			"cat key",
			"ln -s $HOME/.aws/credentials mine && cat mine",
			"grep -r ZS-SECRET $HOME",
			"cp -r $HOME/.ssh stolen; cat stolen/*",
			"tar cf - $HOME 2>/dev/null | strings",
		} {
			r := e.sh(script)
			assertNoSecret(t, e, r, script)
		}
		harness.MustNotExist(t, filepath.Join(e.proj, "stolen", "id_rsa"))
	})
}

// TestCredentialsHiddenWhenCwdIsHome: hidden beats writable.
func TestCredentialsHiddenWhenCwdIsHome(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.runIn(e.home, nil, "exec", "--", "sh", "-c", "cat .ssh/id_rsa; cat .aws/credentials; grep -r ZS-SECRET .")
		assertNoSecret(t, e, r, "reads with cwd = home")
		r = e.runIn(e.home, nil, "exec", "--", "sh", "-c", "echo x > .ssh/authorized_keys")
		mustFail(t, r, "write into hidden ~/.ssh")
		harness.MustNotExist(t, filepath.Join(e.home, ".ssh", "authorized_keys"))
		r = e.runIn(e.home, nil, "exec", "--", "sh", "-c", "echo x >> .netrc")
		mustFail(t, r, "append to hidden ~/.netrc")
		r = e.runIn(e.home, nil, "exec", "--", "mv", ".ssh", "stolen-ssh")
		mustFail(t, r, "mv hidden dir out")
		r = e.runIn(e.home, nil, "exec", "--", "mv", ".netrc", "stolen-netrc")
		mustFail(t, r, "mv hidden file out")
		r = e.runIn(e.home, nil, "exec", "--", "rm", "-rf", ".aws")
		mustFail(t, r, "rm hidden dir")
		harness.MustNotExist(t, filepath.Join(e.home, "stolen-ssh"))
		harness.MustNotExist(t, filepath.Join(e.home, "stolen-netrc"))
		harness.MustContain(t, filepath.Join(e.home, ".ssh", "id_rsa"), e.secret+"\n")
		harness.MustContain(t, filepath.Join(e.home, ".netrc"), e.secret+"\n")
		harness.MustContain(t, filepath.Join(e.home, ".aws", "credentials"), e.secret+"\n")
	})
}

// TestSettingsFileUnreachable: the settings file is applied, but the
// command can neither read nor change it.
func TestSettingsFileUnreachable(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		settings := filepath.Join(e.home, ".config", "zsandbox", "settings.json")
		want, _ := os.ReadFile(settings)
		r := e.runIn(e.home, nil, "exec", "--", "sh", "-c", "cat "+settings+"; echo '{}' > "+settings+"; rm -f "+settings)
		assertNoSecret(t, e, r, "read settings")
		harness.MustContain(t, settings, string(want))
		alt := filepath.Join(e.base, "alt.json")
		e.write(alt, `{"hide": ["`+e.proj+`/private"]}`)
		e.write(filepath.Join(e.proj, "private"), e.secret)
		e.chownAll()
		r = e.sh("cat private; cat "+alt, "--settings", alt)
		mustFail(t, r, "read with settings hiding it")
		assertNoSecret(t, e, r, "settings hide")
	})
}

// TestWriteIntoHiddenDirFailsVisibly: the command must see the error, not
// write into a throw-away mount.
func TestWriteIntoHiddenDirFailsVisibly(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.sh("echo x > $HOME/.aws/new && echo WROTE", "--writable", e.home)
		mustFail(t, r, "write into hidden ~/.aws with home writable")
		if strings.Contains(r.Stdout, "WROTE") {
			t.Errorf("write into hidden dir reported success\n%s", r)
		}
		harness.MustNotExist(t, filepath.Join(e.home, ".aws", "new"))
	})
}

// TestExtraHide: --hide makes a user-chosen file unreadable.
func TestExtraHide(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.write(filepath.Join(e.proj, ".env"), e.secret+"\n")
		e.chownAll()
		r := e.sh("cat .env", "--hide", ".env")
		mustFail(t, r, "cat --hide'd file")
		assertNoSecret(t, e, r, "cat --hide'd file")
	})
}

// TestLegitimateWrites: the roots are really writable and the host sees it.
func TestLegitimateWrites(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		name := "zsandbox-e2e-" + harness.RandHex(4)
		targets := []string{filepath.Join(e.proj, name), filepath.Join(e.tmp, name), "/tmp/" + name, "/var/tmp/" + name}
		for _, p := range targets {
			r := e.sh("echo ok > " + p)
			mustSucceed(t, r, "write "+p)
			harness.MustContain(t, p, "ok\n")
			os.Remove(p)
		}
		extra := filepath.Join(e.base, "extra")
		e.mkdir(extra)
		e.chownAll()
		mustSucceed(t, e.sh("echo ok > "+extra+"/f", "--writable", extra), "--writable root")
		harness.MustContain(t, filepath.Join(extra, "f"), "ok\n")
	})
}

// TestEnvironmentScrubbed: credential-looking variables are absent unless
// passed by name.
func TestEnvironmentScrubbed(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		cmd := e.command(e.proj, "exec", "--", "env")
		cmd.Env = append(cmd.Env, "GITHUB_TOKEN="+e.secret, "AWS_SECRET_ACCESS_KEY="+e.secret, "MY_PASSWORD="+e.secret, "KEEP_ME=yes")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("env: %v", err)
		}
		if strings.Contains(string(out), e.secret) || !strings.Contains(string(out), "KEEP_ME=yes") {
			t.Errorf("environment not scrubbed as expected:\n%s", out)
		}
		cmd = e.command(e.proj, "exec", "--pass-env", "GITHUB_TOKEN", "--env", "EXTRA=1", "--", "env")
		cmd.Env = append(cmd.Env, "GITHUB_TOKEN="+e.secret)
		out, _ = cmd.Output()
		if !strings.Contains(string(out), "GITHUB_TOKEN="+e.secret) || !strings.Contains(string(out), "EXTRA=1") {
			t.Errorf("--pass-env/--env not applied:\n%s", out)
		}
	})
}
