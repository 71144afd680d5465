//go:build linux

// Package dockertest starts a private dockerd for tests: its own socket,
// data root and exec root under fresh directories, no bridge and no
// iptables rules, so it touches neither the machine's docker nor its
// network. Its only image is a busybox-static root file system imported
// with the API (no registry is reachable). ZSANDBOX_MUST_DOCKER=1 turns
// "dockerd is missing" from a skip into a failure.
package dockertest

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"
)

// Image is the test image's reference.
const Image = "zctx-test/busybox:1"

// Daemon is a running private dockerd.
type Daemon struct {
	Host    string // unix://…/docker.sock
	run     string
	data    string
	cmd     *exec.Cmd
	LogPath string
}

// Must reports whether a missing dockerd is a failure.
func Must() bool { return os.Getenv("ZSANDBOX_MUST_DOCKER") == "1" }

// Start starts a daemon and imports the test image; skip is non-empty
// when the machine cannot run one (and Must is off).
func Start() (d *Daemon, skip string, err error) {
	for _, bin := range []string{"dockerd", "busybox"} {
		if _, err := exec.LookPath(bin); err != nil {
			msg := bin + " is not installed (apt-get install docker.io busybox-static)"
			if Must() {
				return nil, "", fmt.Errorf("%s and ZSANDBOX_MUST_DOCKER=1", msg)
			}
			return nil, msg, nil
		}
	}
	if os.Getuid() != 0 {
		if Must() {
			return nil, "", fmt.Errorf("a private dockerd needs root and ZSANDBOX_MUST_DOCKER=1")
		}
		return nil, "a private dockerd needs root", nil
	}
	var b [4]byte
	rand.Read(b[:])
	tag := hex.EncodeToString(b[:])
	d = &Daemon{run: "/run/zctx-test-" + tag, data: "/var/lib/zctx-test-docker-" + tag}
	d.Host = "unix://" + d.run + "/docker.sock"
	if err := d.start(); err != nil {
		d.Stop()
		return nil, "", err
	}
	if err := importImage(d.Host); err != nil {
		d.Stop()
		return nil, "", err
	}
	return d, "", nil
}

func (d *Daemon) start() error {
	if err := os.MkdirAll(d.run, 0o700); err != nil {
		return err
	}
	d.LogPath = filepath.Join(d.run, "dockerd.log")
	log, err := os.Create(d.LogPath)
	if err != nil {
		return err
	}
	defer log.Close()
	d.cmd = exec.Command("dockerd", "--host", d.Host, "--data-root", d.data,
		"--exec-root", filepath.Join(d.run, "exec"), "--pidfile", filepath.Join(d.run, "docker.pid"),
		"--bridge=none", "--iptables=false", "--ip6tables=false")
	d.cmd.Stdout, d.cmd.Stderr = log, log
	// A mount namespace of its own (Go makes / private in it): the
	// daemon's overlay mounts then never appear in the host's table while
	// a sandboxed test binds "/" recursively (bwrap fails when a mount
	// comes or goes under it).
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM, Unshareflags: syscall.CLONE_NEWNS}
	if err := d.cmd.Start(); err != nil {
		return fmt.Errorf("start dockerd: %v", err)
	}
	return d.wait()
}

// wait polls the socket until the daemon answers.
func (d *Daemon) wait() error {
	cli, err := client.New(client.WithHost(d.Host))
	if err != nil {
		return err
	}
	defer cli.Close()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err = cli.Ping(ctx, client.PingOptions{})
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(d.LogPath)
	return fmt.Errorf("dockerd did not answer on %s: %v\n%s", d.Host, err, tail(b))
}

// Kill kills the daemon and its containerd abruptly (SIGKILL), as a
// crash would; the containers' shims live on, as they do after a crash.
func (d *Daemon) Kill() {
	if d.cmd != nil && d.cmd.Process != nil {
		syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
		d.cmd.Wait()
		d.cmd = nil
	}
	// The dead containerd may linger as a zombie of a PID 1 that does not
	// reap, and dockerd would take its pid file for a live one.
	os.Remove(filepath.Join(d.run, "exec", "containerd", "containerd.pid"))
}

// Restart starts the daemon again on the same data after Kill.
func (d *Daemon) Restart() error { return d.start() }

// Stop stops the daemon and removes everything it made.
func (d *Daemon) Stop() {
	if d.cmd != nil && d.cmd.Process != nil {
		d.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { d.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			d.cmd.Process.Kill()
			<-done
		}
	}
	// Shims (and their containers) of a daemon that crashed: every
	// process that names this daemon's directories.
	killNaming(d.run)
	// Overlay mounts left by a crash would keep the data root busy.
	exec.Command("sh", "-c", `grep -o " $1[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l`, "sh", d.data).Run()
	exec.Command("sh", "-c", `grep -o " $1[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l`, "sh", d.run).Run()
	os.RemoveAll(d.data)
	os.RemoveAll(d.run)
}

// importImage builds the busybox root file system as a tar and imports it.
func importImage(host string) error {
	rootfs, err := busyboxTar()
	if err != nil {
		return err
	}
	cli, err := client.New(client.WithHost(host))
	if err != nil {
		return err
	}
	defer cli.Close()
	res, err := cli.ImageImport(context.Background(), client.ImageImportSource{Source: bytes.NewReader(rootfs), SourceName: "-"}, Image, client.ImageImportOptions{})
	if err != nil {
		return fmt.Errorf("import test image: %v", err)
	}
	defer res.Close()
	var out bytes.Buffer
	out.ReadFrom(res)
	if strings.Contains(out.String(), `"error"`) {
		return fmt.Errorf("import test image: %s", out.String())
	}
	return nil
}

// busyboxTar is /bin/busybox with a symlink per applet, /etc/passwd and
// /etc/group, /tmp (1777) and /workspace.
func busyboxTar() ([]byte, error) {
	bin, err := exec.LookPath("busybox")
	if err != nil {
		return nil, err
	}
	body, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	list, err := exec.Command(bin, "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("busybox --list: %v", err)
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dir := func(name string, mode int64) {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode})
	}
	file := func(name string, mode int64, data []byte) {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data))})
		tw.Write(data)
	}
	for _, d := range []string{"bin/", "etc/", "proc/", "sys/", "dev/", "root/", "workspace/"} {
		dir(d, 0o755)
	}
	dir("tmp/", 0o1777)
	file("bin/busybox", 0o755, body)
	file("etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n"))
	file("etc/group", 0o644, []byte("root:x:0:\nnogroup:x:65534:\n"))
	for _, app := range strings.Fields(string(list)) {
		if app != "busybox" {
			tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + app, Linkname: "busybox", Mode: 0o777})
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// killNaming kills every process whose command line contains s.
func killNaming(s string) {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, c := range dirs {
		b, err := os.ReadFile(c)
		if err == nil && bytes.Contains(b, []byte(s)) {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(c))); err == nil && pid != os.Getpid() {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// Main is a TestMain: it starts a daemon (set gets it, or nil and why it
// was skipped), runs the tests and stops the daemon.
func Main(m *testing.M, set func(d *Daemon, skip string)) {
	d, skip, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dockertest:", err)
		os.Exit(1)
	}
	set(d, skip)
	code := m.Run()
	if d != nil {
		d.Stop()
	}
	os.Exit(code)
}
