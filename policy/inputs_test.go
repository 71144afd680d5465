package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Odd inputs (issue 14, "inputs that fail open"): every derived value is
// held to the rules a --writable root has, and a value the policy cannot
// use is a usage error, never a wider policy.

func wantUsage(t *testing.T, what string, err error, want string) {
	t.Helper()
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error = %v, want a usage error containing %q", what, err, want)
	}
}

// TestResolveKernelTreeCwd: cd / (or /proc, /sys, /dev) made the whole
// machine, or the host's kernel trees, writable through the cwd root.
func TestResolveKernelTreeCwd(t *testing.T) {
	f := newFixture(t)
	for _, cwd := range []string{"/", "/proc", "/proc/self", "/sys", "/dev", "/proc/sys/kernel"} {
		if _, err := os.Stat(cwd); err != nil {
			t.Fatalf("%s: %v", cwd, err)
		}
		_, err := Resolve(Request{}, f.host(cwd))
		wantUsage(t, "host cwd "+cwd, err, "is a writable root and would")
		_, err = Resolve(Request{Cwd: cwd}, f.host(f.proj))
		wantUsage(t, "--cwd "+cwd, err, "is a writable root and would")
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if _, err := Resolve(Request{Cwd: "/dev/shm"}, f.host(f.proj)); err != nil {
			t.Errorf("--cwd /dev/shm: %v, want allowed as a --writable /dev/shm is", err)
		}
	}
}

// TestResolveKernelTreeTmpDir: TMPDIR=/ or a kernel tree is refused like
// such a --writable; values that are merely unusable are left out.
func TestResolveKernelTreeTmpDir(t *testing.T) {
	f := newFixture(t)
	for _, tmp := range []string{"/", "/proc", "/sys/kernel", "/dev", "/proc/self"} {
		h := f.host(f.proj)
		h.Env = append(h.Env, "TMPDIR="+tmp)
		_, err := Resolve(Request{}, h)
		wantUsage(t, "TMPDIR="+tmp, err, `TMPDIR "`+tmp+`" is a writable root and would`)
	}
	for _, tmp := range []string{"rel", "/nonexistent-zs", filepath.Join(f.home, ".ssh", "t")} {
		h := f.host(f.proj)
		h.Env = append(h.Env, "TMPDIR="+tmp)
		p, err := Resolve(Request{}, h)
		if err != nil {
			t.Errorf("TMPDIR=%s: %v, want it left out", tmp, err)
			continue
		}
		for _, r := range p.Writable {
			if r.Source == SourceTmpDir {
				t.Errorf("TMPDIR=%s became writable root %q", tmp, r.Path)
			}
		}
	}
}

// TestResolveKernelTreeGitDir: a .git file naming /proc never makes it
// writable: refused, or (when .git files there are not trusted) ignored.
func TestResolveKernelTreeGitDir(t *testing.T) {
	f := newFixture(t)
	sub := filepath.Join(f.proj, "sub")
	mustMkdir(t, sub)
	writeFile(t, filepath.Join(f.proj, ".git"), "gitdir: /proc\n")
	p, err := Resolve(Request{}, f.host(sub))
	if err != nil {
		wantUsage(t, "gitdir: /proc", err, `"/proc" is a writable root and would`)
		return
	}
	for _, r := range p.Writable {
		if kernelTree(r.Path) != "" {
			t.Errorf("writable root %q (%s) from a planted .git file", r.Path, r.Source)
		}
	}
}

// TestResolveRelativeHome: HOME=rel would hide one home's credentials and
// let the command's tools use another's.
func TestResolveRelativeHome(t *testing.T) {
	f := newFixture(t)
	h := f.host(f.proj)
	h.Env = append(h.Env, "HOME=rel")
	_, err := Resolve(Request{}, h)
	wantUsage(t, "HOME=rel", err, `HOME "rel" is not an absolute path`)
}

func TestExpandLength(t *testing.T) {
	long := strings.Repeat("a", nameMax)
	if _, err := Expand("/x/"+long, "/h", "/c"); err != nil {
		t.Errorf("a %d-byte name: %v, want accepted", nameMax, err)
	}
	for _, p := range []string{"/x/" + long + "a", long + "a", strings.Repeat("/abcdefg", pathMax/8)} {
		if _, err := Expand(p, "/h", "/c"); err == nil {
			t.Errorf("Expand(%d bytes): accepted a path no system call takes", len(p))
		}
	}
	f := newFixture(t)
	_, err := Resolve(Request{Hide: []string{filepath.Join(f.proj, long+"a")}}, f.host(f.proj))
	wantUsage(t, "--hide with a long name", err, "NAME_MAX")
	_, err = Resolve(Request{}, f.host(filepath.Join(f.proj, long+"a")))
	wantUsage(t, "cwd with a long name", err, "the working directory")
}

// TestResolveNonUTF8: a path that is not UTF-8 keeps its bytes: the root
// bound is the directory named, not a replacement-character look-alike.
func TestResolveNonUTF8(t *testing.T) {
	f := newFixture(t)
	odd := filepath.Join(f.base, "n\xff\xfe")
	mustMkdir(t, odd)
	p, err := Resolve(Request{Writable: []Path{{odd, SourceFlag}}, Hide: []string{odd + "/h\xff"}}, f.host(odd))
	if err != nil {
		t.Fatal(err)
	}
	if got := rootsUnder(p, f.base); len(got) != 1 || got[0].Path != odd {
		t.Errorf("writable = %q, want only %q", got, odd)
	}
	if !strings.Contains(strings.Join(p.ProtectedPaths(), "\n"), odd+"/h\xff") {
		t.Errorf("missing hidden path inside the root is not protected: %q", p.ProtectedPaths())
	}
}

// TestResolveEnvDropsOwnVariables: the caller's ZSANDBOX_* configure this
// run, not a zsandbox nested inside the command.
func TestResolveEnvDropsOwnVariables(t *testing.T) {
	env, dropped, err := resolveEnv([]string{"ZSANDBOX_WRITABLE=/", "ZSANDBOX_SETTINGS=/s", "ZSANDBOX_NETWORK=allow", "KEEP=1"},
		nil, []string{"ZSANDBOX_NETWORK"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(env, " "); got != "ZSANDBOX_NETWORK=allow KEEP=1" {
		t.Errorf("env = %q, want only the passed ZSANDBOX_NETWORK and KEEP", got)
	}
	if got := strings.Join(dropped, " "); got != "ZSANDBOX_SETTINGS ZSANDBOX_WRITABLE" {
		t.Errorf("dropped = %q", got)
	}
}

const mountinfoFixture = `22 1 0:21 / /proc rw,nosuid - proc proc rw
23 1 0:22 / /sys rw - sysfs sysfs rw
40 1 8:1 / /srv/build\040root rw shared:1 - ext4 /dev/sda1 rw
41 40 0:50 / /srv/build\040root/proc rw shared:2 master:3 - proc proc rw
42 1 0:51 / /var/cache/cg rw - cgroup2 cgroup2 rw
43 1 0:52 / /home/u/mnt rw - tmpfs tmpfs rw
`

func TestParseKernelMounts(t *testing.T) {
	got := parseKernelMounts(mountinfoFixture)
	want := []kernelMount{{"/proc", "proc"}, {"/sys", "sysfs"}, {"/srv/build root/proc", "proc"}, {"/var/cache/cg", "cgroup2"}}
	if len(got) != len(want) {
		t.Fatalf("parseKernelMounts = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mount %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestKernelMountIn: a build chroot's proc below a writable root bound
// the host's procfs writable (as root: core_pattern).
func TestKernelMountIn(t *testing.T) {
	mounts := parseKernelMounts(mountinfoFixture)
	for root, refused := range map[string]bool{
		"/srv/build root": true, "/srv": true, "/srv/build root/proc/sys": true, "/var/cache": true,
		"/srv/build": false, "/home/u": false, "/tmp": false, "/dev/shm": false,
	} {
		if got := kernelMountIn(root, mounts) != ""; got != refused {
			t.Errorf("kernelMountIn(%q) refused = %v, want %v", root, got, refused)
		}
	}
}

func TestResolveKernelMountUnderCwd(t *testing.T) {
	f := newFixture(t)
	info := filepath.Join(f.base, "mountinfo")
	writeFile(t, info, "41 40 0:50 / "+filepath.Join(f.proj, "chroot", "proc")+" rw - proc proc rw\n")
	old := mountInfo
	mountInfo = info
	t.Cleanup(func() { mountInfo = old })
	_, err := Resolve(Request{}, f.host(f.proj))
	wantUsage(t, "proc mounted under the cwd", err, "would bind the proc mount")
	writeFile(t, info, "41 40 0:50 / /srv/zsandbox-elsewhere/proc rw - proc proc rw\n")
	if _, err := Resolve(Request{}, f.host(f.proj)); err != nil {
		t.Errorf("a proc mount outside every root: %v", err)
	}
}

// TestSettingsPathOddXDG: a relative XDG_CONFIG_HOME is ignored (it would
// name a settings file in whatever the cwd is); "/" is taken as given.
func TestSettingsPathOddXDG(t *testing.T) {
	for xdg, want := range map[string]string{
		"":         "/h/.config/zsandbox/settings.json",
		"rel/conf": "/h/.config/zsandbox/settings.json",
		"/":        "/zsandbox/settings.json",
		"/x/../y":  "/y/zsandbox/settings.json",
	} {
		h := Host{Cwd: "/c", Home: "/h", Env: []string{"XDG_CONFIG_HOME=" + xdg}}
		if got := SettingsPath("", h); got != want {
			t.Errorf("SettingsPath(XDG_CONFIG_HOME=%q) = %q, want %q", xdg, got, want)
		}
	}
}
