package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// Nothing a sandboxed command writes may widen a later run. Every test
// here makes two real runs: run 1 plants as the attacker would (from
// inside the sandbox, where it may write), run 2 is the victim's ordinary
// invocation; the victim is checked from outside, or run 2 must refuse
// with 127, an error naming the path and a hint.

// runWith runs bin (zsandbox when "") as the identity in dir, with the
// fixture's environment changed by env (KEY=VALUE replaces KEY).
func (e *env) runWith(bin, dir string, env []string, args ...string) result {
	e.t.Helper()
	cmd := e.command(dir, args...)
	if bin != "" {
		cmd.Path, cmd.Args[0] = bin, bin
	}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		cmd.Env = append(without(cmd.Env, k), kv)
	}
	return harness.Run(e.t, cmd)
}

func without(env []string, key string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// private runs setup as root in a private mount namespace (to plant in
// shared places such as /tmp without touching the real ones), then script
// as the identity, with the fixture's environment plus ZS (the binary).
// When the tests are not root, the namespace comes with a user namespace.
func (e *env) private(setup, script string) result {
	e.t.Helper()
	args := []string{"-rm"}
	inner := script
	if os.Geteuid() == 0 {
		args = []string{"-m", "--propagation", "private"}
		inner = fmt.Sprintf("exec setpriv --reuid=%d --regid=%d --clear-groups sh -c %s", e.id.UID, e.id.GID, shq(script))
	}
	cmd := exec.Command("unshare", append(args, "sh", "-c", "set -e\n"+setup+"\n"+inner)...)
	cmd.Dir = e.proj
	cmd.Env = append(e.command(e.proj).Env, "ZS="+zsandbox)
	return harness.Run(e.t, cmd)
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// mustRefuse asserts run 2 refused: 127, an error naming path, a hint.
func mustRefuse(t *testing.T, r result, path, what string) {
	t.Helper()
	if r.Code != 127 || !strings.Contains(r.Stderr, "zsandbox: error:") || !strings.Contains(r.Stderr, path) ||
		!strings.Contains(r.Stderr, "zsandbox: hint:") {
		t.Errorf("%s: want exit 127 with an error naming %s and a hint\n%s", what, path, r)
	}
}

// TestPlantedGitFileDoesNotWiden (escape 1): a .git file planted in a
// cwd that is no repository (with a fake worktree dir whose commondir is
// the victim), or in a writable parent of the cwd, or in /tmp, adds no
// writable root to the next run.
func TestPlantedGitFileDoesNotWiden(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		victim := filepath.Join(e.outside, "file")
		fake := filepath.Join(e.tmp, "x", "wt")
		plant := fmt.Sprintf("mkdir -p %[1]s && printf 'gitdir: %[1]s\\n' > .git && echo %[2]s > %[1]s/commondir && echo %[3]s/.git > %[1]s/gitdir",
			fake, e.outside, e.proj)
		mustSucceed(t, e.sh(plant), "run 1 plants .git in cwd")
		mustFail(t, e.sh("echo pwned > "+victim), "run 2 writes the victim")
		harness.MustContain(t, victim, "original\n")

		// A .git file in the parent (run 1 had cwd = home).
		os.Remove(filepath.Join(e.proj, ".git"))
		r := e.runIn(e.home, nil, "exec", "--", "sh", "-c", "printf 'gitdir: "+e.outside+"\\n' > .git")
		mustSucceed(t, r, "run 1 plants .git in the parent")
		mustFail(t, e.sh("echo pwned > "+victim), "run 2 below the planted parent writes the victim")
		harness.MustContain(t, victim, "original\n")

		// /tmp/.git, planted by one run, read by every later run under /tmp.
		r = e.private("mount -t tmpfs tmpfs /tmp && mkdir /tmp/a /tmp/b && chown "+owner(e)+" /tmp/a /tmp/b",
			`cd /tmp/a && "$ZS" exec -- sh -c 'printf "gitdir: `+e.outside+`\n" > /tmp/.git'
			cd /tmp/b && "$ZS" exec -- sh -c 'echo pwned > `+victim+`' || echo run2-failed`)
		if !strings.Contains(r.Stdout, "run2-failed") {
			t.Errorf("run 2 under a planted /tmp/.git succeeded\n%s", r)
		}
		harness.MustContain(t, victim, "original\n")
	})
}

// owner is the identity as chown takes it inside e.private's namespace.
func owner(e *env) string {
	if os.Geteuid() != 0 {
		return "0:0" // the caller, mapped to root by unshare -r
	}
	return fmt.Sprintf("%d:%d", e.id.UID, e.id.GID)
}

// TestWorktreeAdminFilesDoNotWiden (escape 2): a linked worktree's
// commondir, gitdir and .git pointer cannot be rewritten from the
// worktree; rewritten from the main repository (where they are plain
// files), they do not make another repository writable; commits from the
// worktree and from a repository subdirectory keep working.
func TestWorktreeAdminFilesDoNotWiden(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		gitDir := repo(t, e)
		wt := filepath.Join(e.home, "wt")
		git(t, e.proj, "worktree", "add", "-q", wt)
		victimRepo := filepath.Join(e.home, "victim")
		e.mkdir(victimRepo)
		git(t, victimRepo, "init", "-q")
		e.mkdir(filepath.Join(e.proj, "sub"))
		e.chownAll()
		admin := filepath.Join(gitDir, "worktrees", "wt")
		r := e.runIn(wt, nil, "exec", "--", "sh", "-c", "echo hi > g && git add g && "+sandboxCommit)
		mustSucceed(t, r, "commit in the linked worktree")
		r = e.runIn(filepath.Join(e.proj, "sub"), nil, "exec", "--", "sh", "-c", "echo hi > s && git add s && "+sandboxCommit)
		mustSucceed(t, r, "commit from a repository subdirectory")
		if log := git(t, e.proj, "log", "--oneline", "--all"); strings.Count(log, "from-sandbox") != 2 {
			t.Errorf("commits not on the host:\n%s", log)
		}

		files := map[string]string{}
		for _, f := range []string{filepath.Join(admin, "commondir"), filepath.Join(admin, "gitdir"), filepath.Join(wt, ".git")} {
			b, _ := os.ReadFile(f)
			files[f] = string(b)
			for _, attack := range []string{"echo " + victimRepo + "/.git > " + f, "rm -f " + f, "mv " + f + " " + f + ".x"} {
				mustFail(t, e.runIn(wt, nil, "exec", "--", "sh", "-c", attack), "from the worktree: "+attack)
			}
		}
		for f, want := range files {
			harness.MustContain(t, f, want)
		}

		// Rewritten anyway (from the main repository they are protected
		// too, TestSiblingWorktreeAdminProtected; here by hand), they do
		// not make another repository writable.
		e.write(filepath.Join(admin, "commondir"), victimRepo+"/.git\n")
		pwned := filepath.Join(victimRepo, ".git", "pwned")
		mustFail(t, e.runIn(wt, nil, "exec", "--", "sh", "-c", "echo x > "+pwned), "run 2 in the worktree writes the victim repository")
		harness.MustNotExist(t, pwned)
	})
}

// TestWritableThroughPlantedSymlink (escape 3): run 1 swaps a directory
// for a symlink to the victim; run 2's --writable (ZSANDBOX_WRITABLE, a
// relative settings entry), TMPDIR or --cwd through it refuses. A real
// directory and the system's own links (/var/run -> /run) keep working.
func TestWritableThroughPlantedSymlink(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		cache := filepath.Join(e.proj, "cache")
		e.mkdir(cache)
		e.mkdir(filepath.Join(e.outside, "bin"))
		e.chownAll()
		mustSucceed(t, e.sh("echo ok > "+cache+"/f", "--writable", cache), "--writable of a real directory")
		harness.MustContain(t, filepath.Join(cache, "f"), "ok\n")

		mustSucceed(t, e.sh("rm -r cache && ln -s "+e.outside+" cache && ln -s "+e.outside+" $TMPDIR/X"), "run 1 plants the symlinks")
		victim := filepath.Join(e.outside, "file")
		write := []string{"--", "sh", "-c", "echo pwned > cache/file; echo pwned > " + e.outside + "/bin/file"}
		settings := filepath.Join(e.home, ".config/zsandbox/settings.json")
		e.write(settings, `{"writable": ["cache"]}`)
		e.chownAll()
		mustRefuse(t, e.runWith("", e.proj, nil, append([]string{"exec"}, write...)...), cache, "relative settings entry")
		e.write(settings, `{}`)
		mustRefuse(t, e.runWith("", e.proj, nil, append([]string{"exec", "--writable", "./cache"}, write...)...), cache, "--writable")
		mustRefuse(t, e.runWith("", e.proj, []string{"ZSANDBOX_WRITABLE=./cache"}, append([]string{"exec"}, write...)...), cache, "ZSANDBOX_WRITABLE")
		x := filepath.Join(e.tmp, "X")
		mustRefuse(t, e.runWith("", e.proj, []string{"TMPDIR=" + x + "/bin"}, append([]string{"exec"}, write...)...), x, "TMPDIR")
		mustRefuse(t, e.runWith("", e.proj, nil, append([]string{"exec", "--cwd", x + "/bin"}, write...)...), x, "--cwd")
		r := e.runWith("", e.proj, nil, "exec", "--writable", "./cache", "--", "true")
		if !strings.Contains(r.Stderr, "name the real directory "+e.outside) {
			t.Errorf("the hint does not name the real directory:\n%s", r)
		}
		harness.MustContain(t, victim, "original\n")
		harness.MustNotExist(t, filepath.Join(e.outside, "bin", "file"))

		r = e.private("mount -t tmpfs -o mode=755 tmpfs /run && mkdir /run/zs && chown "+owner(e)+" /run/zs",
			`"$ZS" exec --writable /var/run/zs -- sh -c 'echo ok > /var/run/zs/f' && cat /run/zs/f`)
		if r.Code != 0 || r.Stdout != "ok\n" {
			t.Errorf("--writable through the system link /var/run -> /run:\n%s", r)
		}
	})
}

// TestObeyedFilesARunCouldWrite (escape 4): a seccomp profile a run
// could have rewritten (in the cwd, in TMPDIR, named by settings) is
// refused; with --backend landlock and cwd = $HOME, the missing settings
// file cannot be created (the run refuses), so no later run obeys it.
func TestObeyedFilesARunCouldWrite(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		allowAll := `{"defaultAction": "SCMP_ACT_ALLOW"}`
		mustSucceed(t, e.sh("echo '"+allowAll+"' > profile.json && echo '"+allowAll+"' > $TMPDIR/profile.json"), "run 1 plants profiles")
		marker := filepath.Join(e.proj, "ran")
		for _, prof := range []string{filepath.Join(e.proj, "profile.json"), filepath.Join(e.tmp, "profile.json")} {
			mustRefuse(t, e.run("exec", "--seccomp-profile", prof, "--", "touch", marker), prof, "--seccomp-profile "+prof)
		}
		settings := filepath.Join(e.home, ".config/zsandbox/settings.json")
		e.write(settings, `{"seccompProfile": "~/proj/profile.json"}`)
		e.chownAll()
		mustRefuse(t, e.run("exec", "--", "touch", marker), filepath.Join(e.proj, "profile.json"), "settings seccompProfile")
		harness.MustNotExist(t, marker)

		// --backend landlock, cwd = $HOME, no credential files and no
		// settings file yet: run 1 would create the settings file.
		for _, f := range credentialFiles {
			os.RemoveAll(filepath.Join(e.home, strings.Split(f, "/")[0]))
		}
		plant := `mkdir -p .config/zsandbox && echo '{"writable": ["` + e.outside + `"]}' > .config/zsandbox/settings.json`
		r := e.runIn(e.home, nil, "exec", "--backend", "landlock", "--no-warning", "--", "sh", "-c", plant)
		if r.Code != 127 || !strings.Contains(r.Stderr, "zsandbox: error:") || !strings.Contains(r.Stderr, "zsandbox: hint:") {
			t.Errorf("run 1 (--backend landlock, cwd = home): want 127 with error and hint\n%s", r)
		}
		if e.id.UID != 0 && !strings.Contains(r.Stderr, "does not exist and lies inside writable root") {
			t.Errorf("run 1: the refusal does not say why\n%s", r)
		}
		harness.MustNotExist(t, settings)
		mustFail(t, e.run("exec", "--backend", "landlock", "--no-warning", "--", "sh", "-c", "echo pwned > "+e.outside+"/file"), "run 2 writes the victim")
		harness.MustContain(t, filepath.Join(e.outside, "file"), "original\n")
	})
}

// install copies the zsandbox under test to bin, owned by the identity,
// and returns its bytes.
func (e *env) install(bin string) []byte {
	e.t.Helper()
	data, err := os.ReadFile(zsandbox)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		e.t.Fatal(err)
	}
	e.chownAll()
	return data
}

// TestOwnBinaryCannotBeReplaced (escape 5a): zsandbox run from bin/ in
// the cwd (README's quick start) cannot be replaced by the command.
func TestOwnBinaryCannotBeReplaced(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		bin := filepath.Join(e.proj, "bin", "zsandbox")
		e.mkdir(filepath.Dir(bin))
		data := e.install(bin)
		attacks := []string{"cp /bin/true bin/zsandbox", "echo x > bin/zsandbox", "rm -f bin/zsandbox",
			"cp /bin/true t && mv t bin/zsandbox", "mv bin bin2", "ln -sf /bin/true bin/zsandbox"}
		for _, a := range attacks {
			r := e.runWith(bin, e.proj, nil, "exec", "--", "sh", "-c", a)
			mustFail(t, r, "run 1: "+a)
		}
		got, err := os.ReadFile(bin)
		if err != nil || sha256.Sum256(got) != sha256.Sum256(data) {
			t.Errorf("bin/zsandbox changed on the host (err %v)", err)
		}
		mustSucceed(t, e.runWith(bin, e.proj, nil, "exec", "--", "true"), "run 2 with the same binary")
		// Without mounts the binary cannot be kept read-only: refused.
		r := e.runWith(bin, e.proj, nil, "exec", "--backend", "landlock", "--no-warning", "--", "sh", "-c", "echo x > bin/zsandbox")
		if r.Code != 127 || (e.id.UID != 0 && !strings.Contains(r.Stderr, "own binary")) {
			t.Errorf("--backend landlock from bin/ in a writable root: want 127 naming the binary\n%s", r)
		}
		if got, _ := os.ReadFile(bin); sha256.Sum256(got) != sha256.Sum256(data) {
			t.Errorf("bin/zsandbox changed on the host under --backend landlock")
		}
	})
}

// TestLoaderVarsDoNotReachBwrap (red team): with LD_PRELOAD (or any
// loader variable) in the caller's environment naming a file in a
// writable root, run 1 plants a library there; bwrap, which runs outside
// the sandbox with the caller's rights, must not load it. The library
// notes every program that loads it outside the sandbox (the e2e build
// of zsandbox is not static, so it loads it too: the caller's own
// choice); bwrap must not be among them. The command still gets the
// variable.
func TestLoaderVarsDoNotReachBwrap(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatal("gcc is required")
	}
	each(t, func(t *testing.T, e *env) {
		marker := filepath.Join(e.outside, "loaded-by")
		src := filepath.Join(e.base, "hook.c")
		e.write(src, `#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void hook(void) {
	char exe[4096]; ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	int fd = open("`+marker+`", O_CREAT|O_WRONLY|O_APPEND, 0666);
	if (fd >= 0 && n > 0) { exe[n++] = '\n'; write(fd, exe, n); }
	if (fd >= 0) close(fd);
}
`)
		if out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", filepath.Join(e.base, "hook.so"), src).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		e.chownAll()
		lib := filepath.Join(e.proj, "lib", "libhook.so")
		mustSucceed(t, e.sh("mkdir -p lib && cp "+filepath.Join(e.base, "hook.so")+" "+lib), "run 1 plants the library")
		r := e.runWith("", e.proj, []string{"LD_PRELOAD=" + lib}, "exec", "--", "sh", "-c", "echo $LD_PRELOAD")
		mustSucceed(t, r, "run 2 with LD_PRELOAD")
		if r.Stdout != lib+"\n" {
			t.Errorf("the command lost LD_PRELOAD: %q", r.Stdout)
		}
		if b, _ := os.ReadFile(marker); strings.Contains(string(b), "bwrap") {
			t.Errorf("bwrap loaded the planted library outside the sandbox:\n%s", b)
		}
	})
}

// TestPlantedBwrapNotRun (escape 5b): a bwrap planted in ~/bin by a run
// with cwd = $HOME is not run by a later run from another cwd, with
// /usr/bin/bwrap gone: it refuses with 127 and the marker stays absent.
func TestPlantedBwrapNotRun(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		marker := filepath.Join(e.outside, "planted-ran")
		planted := filepath.Join(e.home, "bin", "bwrap")
		plant := "mkdir -p bin && printf '#!/bin/sh\\ntouch " + marker + "\\n' > bin/bwrap && chmod 755 bin/bwrap"
		if r := e.runIn(e.home, nil, "exec", "--", "sh", "-c", plant); r.Code != 0 {
			// ~/bin may be protected: plant it as the earlier run could
			// have (as the identity), to test the lookup itself.
			e.mkdir(filepath.Dir(planted))
			if err := os.WriteFile(planted, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			e.chownAll()
		}
		bwrapPath, _ := exec.LookPath("bwrap")
		r := e.private("mount --bind /dev/null "+bwrapPath,
			`PATH=`+filepath.Dir(planted)+`:$PATH exec "$ZS" exec -- true`)
		if r.Code != 127 || !strings.Contains(r.Stderr, "zsandbox: error: bubblewrap (bwrap) is not installed") {
			t.Errorf("want 127 and the not-installed error\n%s", r)
		}
		harness.MustNotExist(t, marker)
	})
}

// TestHiddenThroughSymlinkRefused (escape 6): ~/.kube -> dotfiles/kube
// with $HOME writable refuses, so run 1 cannot swap the symlink for an
// empty directory and leave the real config unhidden for run 2.
func TestHiddenThroughSymlinkRefused(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		kube := filepath.Join(e.home, ".kube")
		os.RemoveAll(kube)
		real := filepath.Join(e.home, "dotfiles", "kube", "config")
		e.mkdir(filepath.Dir(real))
		e.write(real, e.secret+"\n")
		if err := os.Symlink("dotfiles/kube", kube); err != nil {
			t.Fatal(err)
		}
		e.chownAll()
		mustRefuse(t, e.runIn(e.home, nil, "exec", "--", "sh", "-c", "rm .kube && mkdir .kube"), kube, "run 1 (cwd = home)")
		if fi, err := os.Lstat(kube); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("~/.kube is no longer the symlink: %v", err)
		}
		r := e.runIn(e.home, nil, "exec", "--", "cat", real)
		mustRefuse(t, r, kube, "run 2 (cwd = home)")
		assertNoSecret(t, e, r, "run 2 (cwd = home)")
		r = e.sh("cat ~/.kube/config " + real)
		mustFail(t, r, "read from the project")
		assertNoSecret(t, e, r, "read from the project")
	})
}

// TestStrayTmpGit: a root-owned empty /tmp/.git (another tool made it)
// neither widens nor breaks runs under /tmp or in /tmp itself, and
// nothing is made in it.
func TestStrayTmpGit(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		r := e.private("mount -t tmpfs tmpfs /tmp && mkdir /tmp/.git /tmp/w && chown "+owner(e)+" /tmp/w",
			`cd /tmp/w && "$ZS" exec -- sh -c 'echo ok > f' && cat f
			cd /tmp && "$ZS" exec -- true && echo in-tmp-ok
			ls -A /tmp/.git | wc -l
			cd /tmp/w && "$ZS" explain --format json`)
		out, doc, _ := strings.Cut(r.Stdout, "{")
		if r.Code != 0 || out != "ok\nin-tmp-ok\n0\n" {
			t.Fatalf("want the runs to work and nothing made in /tmp/.git\n%s", r)
		}
		var p struct {
			Writable, Protected []struct{ Path string }
		}
		if err := json.Unmarshal([]byte("{"+doc), &p); err != nil {
			t.Fatalf("explain: %v\n%s", err, r)
		}
		for _, x := range append(p.Writable, p.Protected...) {
			if strings.HasPrefix(x.Path, "/tmp/.git") {
				t.Errorf("the stray /tmp/.git is in the policy: %s", x.Path)
			}
		}
	})
}

// TestPlaceholdersGoneWhenStartFails: a run that made placeholders
// (cwd = home: the missing rc files) and then cannot make one (a
// --protect name so long that the placeholder's temporary name is
// refused; a read-only mount would not do: what the command could not
// create either needs no placeholder), or whose bwrap cannot build the
// sandbox, leaves none behind.
func TestPlaceholdersGoneWhenStartFails(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		zz := filepath.Join(e.base, "zz")
		e.mkdir(filepath.Join(zz, ".git"))
		e.chownAll()
		before := listHome(t, e)
		r := e.runIn(e.home, nil, "exec", "--writable", zz, "--protect", filepath.Join(zz, strings.Repeat("x", 250)), "--", "true")
		if r.Code != 127 || !strings.Contains(r.Stderr, "zsandbox: error: protected path") {
			t.Errorf("want 127 for the uncreatable placeholder\n%s", r)
		}
		if after := listHome(t, e); after != before {
			t.Errorf("placeholders left behind:\nbefore %s\nafter  %s", before, after)
		}
		r = e.noUserns(t, e.home, "exec", "--", "true")
		if r.Code != 127 {
			t.Errorf("want 127 without user namespaces\n%s", r)
		}
		if after := listHome(t, e); after != before {
			t.Errorf("placeholders left behind after a setup failure:\nbefore %s\nafter  %s", before, after)
		}
	})
}

func listHome(t *testing.T, e *env) string {
	t.Helper()
	var names []string
	filepath.Walk(e.home, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			names = append(names, strings.TrimPrefix(p, e.home))
		}
		return nil
	})
	return strings.Join(names, " ")
}

// TestCwdIsTheKernels: the working directory is what the kernel says
// (getcwd), not $PWD: started through the user's own symlink with $PWD
// naming it, the run works in the real directory instead of refusing the
// symlink (or trusting it).
func TestCwdIsTheKernels(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		link := filepath.Join(e.home, "proj-link")
		if err := os.Symlink(e.proj, link); err != nil {
			t.Fatal(err)
		}
		e.chownAll()
		r := e.runWith("", link, []string{"PWD=" + link}, "exec", "--", "sh", "-c", "pwd -P && echo ok > f")
		mustSucceed(t, r, "run started through a symlinked cwd")
		if r.Stdout != e.proj+"\n" {
			t.Errorf("the command runs in %q, want %q", r.Stdout, e.proj)
		}
		harness.MustContain(t, filepath.Join(e.proj, "f"), "ok\n")
	})
}
