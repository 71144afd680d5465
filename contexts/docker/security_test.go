//go:build linux

package docker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/conformance"
)

// hostDirs makes base/work and base/other under the cache directory, not
// /tmp (a shared place other tests write); removed at the end.
func hostDirs(t *testing.T) (base, work, other string) {
	t.Helper()
	cache, _ := os.UserCacheDir()
	base, err := os.MkdirTemp(cache, "zctx-docker-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	work, other = filepath.Join(base, "work"), filepath.Join(base, "other")
	os.MkdirAll(work, 0o755)
	os.MkdirAll(other, 0o755)
	return base, work, other
}

func spawnT(t *testing.T, o contexts.Options, cfg contexts.SpawnConfig) contexts.Handle {
	t.Helper()
	h, err := newContext(t, o).Spawn(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	t.Cleanup(func() { h.Destroy(context.Background()) })
	return h
}

// The container really runs with no capabilities, no-new-privileges and
// the seccomp profile in force, read from the kernel's own view
// (/proc/self/status), for the container's root user and for execs.
func TestHardening(t *testing.T) {
	needDocker(t)
	h := spawnT(t, testOptions(), contexts.SpawnConfig{})
	r, err := h.Exec(context.Background(), contexts.Cmd{Args: []string{"cat", "/proc/self/status"}})
	if err != nil {
		t.Fatal(err)
	}
	status := string(r.Stdout)
	for _, want := range []string{"CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "CapBnd:\t0000000000000000",
		"NoNewPrivs:\t1", "Seccomp:\t2"} {
		if !strings.Contains(status, want) {
			t.Errorf("/proc/self/status lacks %q:\n%s", want, status)
		}
	}
	// The project's profile, not just some filter: io_uring_setup is
	// refused with EPERM (1) by ours and allowed by Docker 20.10's default.
	probe := buildProbe(t)
	if err := h.WriteFile(context.Background(), "/tmp/probe", probe, 0o755); err != nil {
		t.Fatal(err)
	}
	r, _ = h.Exec(context.Background(), contexts.Cmd{Args: []string{"/tmp/probe"}})
	if strings.TrimSpace(string(r.Stdout)) != "io_uring_setup=1" {
		t.Errorf("probe: %q %q, want io_uring_setup=1 (EPERM: the project's seccomp profile)", r.Stdout, r.Stderr)
	}
	// Files written as root in the container with no capabilities cannot
	// be given away or made setuid for the host.
	r, _ = h.Exec(context.Background(), contexts.Cmd{Shell: "touch f; chown 65534 f; echo rc=$?"})
	if !strings.Contains(string(r.Stdout), "rc=1") {
		t.Errorf("chown without CAP_CHOWN: %q %q, want a refusal", r.Stdout, r.Stderr)
	}
}

// Attack: reach a listener on the host's loopback, and on the host's
// other addresses, with the network off. Checked from the listener.
func TestNetworkOff(t *testing.T) {
	needDocker(t)
	port, seen := conformance.Listen(t, "0.0.0.0:0")
	h := spawnT(t, testOptions(), contexts.SpawnConfig{})
	var targets []string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && ip.IP.To4() != nil {
			targets = append(targets, ip.IP.String())
		}
	}
	for _, ip := range targets {
		r, _ := h.Exec(context.Background(), contexts.Cmd{Args: []string{"nc", "-w", "2", ip, fmt.Sprint(port)}, Stdin: strings.NewReader("x")})
		if r.ExitCode == 0 {
			t.Errorf("nc %s:%d succeeded from a container with the network off", ip, port)
		}
	}
	if seen() != 0 {
		t.Errorf("the host listener saw %d connections", seen())
	}
	// Control: the same nc on the host reaches it, so the probe works.
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	for i := 0; i < 100 && seen() == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if seen() != 1 {
		t.Errorf("control connection not seen")
	}
}

// Attack: with a host directory bind-mounted as the workspace, read a
// credential file of the host and write outside the workspace (through
// .., a symlink to /, and through the context's own WriteFile and
// ReadFile with a planted symlink). Checked on the host.
func TestWorkspaceOnly(t *testing.T) {
	needDocker(t)
	base, work, secretDir := hostDirs(t)
	secret := "zctx-docker-secret-" + filepath.Base(base)
	os.WriteFile(filepath.Join(secretDir, "id_rsa"), []byte(secret), 0o600)
	o := testOptions()
	o.Mounts = []contexts.Mount{{Source: work, Target: "/workspace"}}
	h := spawnT(t, o, contexts.SpawnConfig{})
	key := filepath.Join(secretDir, "id_rsa")
	r, err := h.Exec(context.Background(), contexts.Cmd{Args: []string{"sh", "-c",
		`cat "$1" /workspace/../secret/id_rsa; echo x > /workspace/../escaped; ln -s / /workspace/root; ln -s "$1" /workspace/key; echo x > /workspace/root/"$2"/escaped2; echo ran`,
		"sh", key, base}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Stdout), "ran") || strings.Contains(string(r.Stdout)+string(r.Stderr), secret) {
		t.Fatalf("stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	for _, p := range []string{filepath.Join(base, "escaped"), filepath.Join(base, "escaped2")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written from the container", p)
		}
	}
	if b, err := h.ReadFile(context.Background(), "key"); err == nil && strings.Contains(string(b), secret) {
		t.Errorf("ReadFile through a planted symlink read the host's credential")
	}
	h.WriteFile(context.Background(), "root"+base+"/escaped3", []byte("x"), 0o644)
	if _, err := os.Stat(filepath.Join(base, "escaped3")); err == nil {
		t.Errorf("WriteFile through a planted symlink wrote on the host")
	}
	// Files the command and WriteFile make in the workspace belong to the
	// caller (the run user defaults to the caller's uid:gid).
	if err := h.WriteFile(context.Background(), "made/by-write.txt", []byte("w"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Exec(context.Background(), contexts.Cmd{Shell: "echo c > by-exec.txt"})
	for _, f := range []string{"made/by-write.txt", "by-exec.txt", "made"} {
		fi, err := os.Stat(filepath.Join(work, f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		st := fi.Sys().(*syscall.Stat_t)
		if int(st.Uid) != os.Getuid() || int(st.Gid) != os.Getgid() {
			t.Errorf("%s is owned by %d:%d, want the caller %d:%d", f, st.Uid, st.Gid, os.Getuid(), os.Getgid())
		}
	}
}

// An explicit run user owns what WriteFile makes and can edit it.
func TestRunUserOwnsFiles(t *testing.T) {
	needDocker(t)
	o := testOptions()
	o.User = "65534:65534"
	h := spawnT(t, o, contexts.SpawnConfig{Cwd: "/tmp/w"})
	if err := h.WriteFile(context.Background(), "d/f.txt", []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The run user's rights bound WriteFile as they bound commands (the
	// archive API, which writes as the daemon, would have let this in).
	if err := h.WriteFile(context.Background(), "/etc/planted", []byte("x"), 0o644); !errors.Is(err, contexts.ErrDenied) {
		t.Errorf("WriteFile(/etc/planted) as uid 65534 = %v, want ErrDenied", err)
	}
	r, err := h.Exec(context.Background(), contexts.Cmd{Shell: "echo b >> d/f.txt && stat -c '%u:%g' d/f.txt d && id -u && cat d/f.txt"})
	if err != nil || r.ExitCode != 0 || string(r.Stdout) != "65534:65534\n65534:65534\n65534\nab\n" {
		t.Errorf("run user 65534: exit %d %q %q %v", r.ExitCode, r.Stdout, r.Stderr, err)
	}
}

func TestBadInput(t *testing.T) {
	needDocker(t)
	ctx := context.Background()
	// No daemon at that address.
	c := newContext(t, contexts.Options{Host: "unix://" + filepath.Join(t.TempDir(), "no.sock"), Image: dockertest_image()})
	if _, err := c.Spawn(ctx, contexts.SpawnConfig{}); !errors.Is(err, contexts.ErrUnavailable) || contexts.Hint(err) == "" {
		t.Errorf("Spawn without a daemon = %v, want ErrUnavailable with a hint", err)
	}
	// An image that is not there and cannot be pulled (no registry).
	o := testOptions()
	o.Image = "zctx-test/no-such-image:1"
	if _, err := newContext(t, o).Spawn(ctx, contexts.SpawnConfig{}); !errors.Is(err, contexts.ErrNotFound) || !strings.Contains(err.Error(), "cannot be pulled") {
		t.Errorf("Spawn of a missing image = %v, want ErrNotFound naming the pull", err)
	}
	// A bind mount of a missing host path is refused (not created).
	o = testOptions()
	missing := filepath.Join(t.TempDir(), "missing")
	o.Mounts = []contexts.Mount{{Source: missing, Target: "/workspace"}}
	if _, err := newContext(t, o).Spawn(ctx, contexts.SpawnConfig{}); err == nil {
		t.Errorf("Spawn with a missing mount source succeeded")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("the missing mount source was created on the host")
	}
	// The handle of a destroyed container.
	dc := newContext(t, testOptions())
	h, err := dc.Spawn(ctx, contexts.SpawnConfig{})
	if err != nil {
		t.Fatal(err)
	}
	st := h.State()
	h.Destroy(ctx)
	if _, err := dc.Attach(ctx, st); !errors.Is(err, contexts.ErrNotFound) {
		t.Errorf("Attach to a destroyed container = %v, want ErrNotFound", err)
	}
	if err := h.Destroy(ctx); err != nil {
		t.Errorf("second Destroy = %v", err)
	}
	if left := labelled(t); len(left) > 0 {
		t.Errorf("left behind: %q", left)
	}
}

func dockertest_image() string { return testOptions().Image }

// The daemon dies in the middle of an exec: the exec returns a clear
// error (no panic, no hang), and once the daemon is back, Destroy leaves
// nothing behind.
func TestDaemonDiesMidExec(t *testing.T) {
	needDocker(t)
	ctx := context.Background()
	c := newContext(t, testOptions())
	h, err := c.Spawn(ctx, contexts.SpawnConfig{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.Start(ctx, contexts.Cmd{Shell: "echo started; sleep 600"})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	p.Stdout().Read(buf)
	done := make(chan error, 1)
	go func() {
		_, err := h.Exec(ctx, contexts.Cmd{Shell: "echo running; sleep 600"})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // let the exec start (not an assertion)
	daemon.Kill()
	select {
	case err := <-done:
		if !errors.Is(err, contexts.ErrUnavailable) {
			t.Errorf("Exec while the daemon died = %v, want ErrUnavailable", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Exec hung after the daemon died")
	}
	if r, err := p.Wait(ctx); err != nil || r.ExitCode != contexts.ExitCannotRun {
		t.Errorf("background process after the daemon died: %+v %v, want exit 127", r.ExitCode, err)
	}
	if _, err := h.Exec(ctx, contexts.Cmd{Shell: "true"}); !errors.Is(err, contexts.ErrUnavailable) {
		t.Errorf("Exec with the daemon gone = %v, want ErrUnavailable", err)
	}
	if err := daemon.Restart(); err != nil {
		t.Fatalf("restart dockerd: %v", err)
	}
	if err := h.Destroy(ctx); err != nil {
		t.Errorf("Destroy after the restart: %v", err)
	}
	if left := labelled(t); len(left) > 0 {
		t.Errorf("left behind: %q", left)
	}
}

// The limits asked for are in force (the container's own cgroup files),
// and a read-only mount cannot be written.
func TestLimitsAndReadOnlyMount(t *testing.T) {
	needDocker(t)
	ro := t.TempDir()
	os.WriteFile(filepath.Join(ro, "keep"), []byte("orig"), 0o644)
	o := testOptions()
	o.Limits = contexts.Limits{MemoryMiB: 64, Pids: 50, CPUs: 0.5}
	o.Mounts = []contexts.Mount{{Source: ro, Target: "/ro", ReadOnly: true}}
	h := spawnT(t, o, contexts.SpawnConfig{})
	r, err := h.Exec(context.Background(), contexts.Cmd{Shell: `cat /sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max 2>/dev/null; ` +
		`cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null; echo x > /ro/keep; echo rc=$?`})
	if err != nil {
		t.Fatal(err)
	}
	out := string(r.Stdout)
	if !strings.Contains(out, "50\n") || !strings.Contains(out, fmt.Sprint(64<<20)) || !strings.Contains(out, "rc=1") {
		t.Errorf("limits or read-only mount not in force: %q %q", out, r.Stderr)
	}
	// WriteFile goes through the daemon, which has every privilege: it
	// must still honour the read-only mount.
	for _, p := range []string{"/ro/keep", "/ro/new"} {
		if err := h.WriteFile(context.Background(), p, []byte("changed"), 0o644); !errors.Is(err, contexts.ErrDenied) {
			t.Errorf("WriteFile(%s) on a read-only mount = %v, want ErrDenied", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ro, "keep")); string(b) != "orig" {
		t.Errorf("the read-only mount was written: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ro, "new")); err == nil {
		t.Errorf("a file was made in the read-only mount")
	}
}

// buildProbe compiles testdata/probe as a static binary.
func buildProbe(t *testing.T) []byte {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "probe")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/probe")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build probe: %v\n%s", err, out)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Attack: defeat a timeout by shedding the ZCTX_EXEC mark the kill looks
// for (`exec env -i`, and a child that clears its environment and keeps
// stdout open). Exec must still come back with 124 instead of hanging its
// caller for good; the test fails (not hangs) if it does not come back.
func TestTimeoutWithoutTheMark(t *testing.T) {
	needDocker(t)
	h := spawnT(t, testOptions(), contexts.SpawnConfig{})
	for _, sh := range []string{"exec env -i sleep 1000", "env -i sleep 1000 & echo started"} {
		done := make(chan contexts.Result, 1)
		go func() {
			r, _ := h.Exec(context.Background(), contexts.Cmd{Shell: sh, Timeout: 500 * time.Millisecond})
			done <- r
		}()
		select {
		case r := <-done:
			if r.ExitCode != contexts.ExitTimeout || !r.TimedOut {
				t.Errorf("%q: exit %d timedOut %v, want 124", sh, r.ExitCode, r.TimedOut)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("%q: Exec with a timeout never returned", sh)
		}
	}
}

// Attack: a FIFO in the listed directory (made by a command) must not
// hang ListFiles, the agent's file tool, for good.
func TestListFilesWithAFIFO(t *testing.T) {
	needDocker(t)
	h := spawnT(t, testOptions(), contexts.SpawnConfig{})
	if r, err := h.Exec(context.Background(), contexts.Cmd{Shell: "mkfifo pipe && echo made"}); err != nil || string(r.Stdout) != "made\n" {
		t.Fatalf("mkfifo: %v %q %q", err, r.Stdout, r.Stderr)
	}
	done := make(chan error, 1)
	go func() {
		list, err := h.ListFiles(context.Background(), ".")
		if err == nil && (len(list) != 1 || list[0].Name != "pipe") {
			err = fmt.Errorf("listing %v, want the pipe", list)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("ListFiles of a directory holding a FIFO never returned")
	}
}
