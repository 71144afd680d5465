//go:build linux

package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/docker"
	"github.com/zsandbox/zsandbox/contexts/internal/dockertest"
)

// A zctx killed with SIGKILL (no cleanup runs) while its container has no
// saved handle leaves the container; the next zctx that talks to the
// daemon removes it, and keeps the one of a zctx that still runs. Real
// processes, a real SIGKILL, the private dockerd seen through its own API.
func TestSIGKILLedZctxLeavesNoContainer(t *testing.T) {
	d := privateDocker(t)
	dir := filepath.Join(setup(t))
	state := os.Getenv("ZCTX_STATE_DIR")
	bin := buildZctx(t)
	base := []string{"--context", "docker", "--docker-host", d.Host, "--image", dockertest.Image}
	start := func() *exec.Cmd { return startRun(t, dir, append([]string{bin, "run"}, base...)) }
	a, b := start(), start()
	cli, err := client.New(client.WithHost(d.Host))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ours := func() []string {
		res, err := cli.ContainerList(context.Background(), client.ContainerListOptions{All: true,
			Filters: client.Filters{}.Add("label", labelState+"="+tag(t, state))})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range res.Items {
			ids = append(ids, c.Labels[docker.LabelID])
		}
		slices.Sort(ids)
		return ids
	}
	before := ours()
	if len(before) != 2 {
		t.Fatalf("containers of the two running zctx: %q", before)
	}
	a.Process.Kill() // SIGKILL: zctx's deferred destroy never runs
	a.Wait()
	if got := ours(); !slices.Equal(got, before) {
		t.Fatalf("after the SIGKILL: %q, want both containers still there (the leak)", got)
	}

	code, out, errs := zctx(t, "", append([]string{"spawn"}, base...)...)
	var h struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &h) != nil {
		t.Fatalf("spawn: %d %q %q", code, out, errs)
	}
	got := ours()
	if len(got) != 2 || !slices.Contains(got, h.ID) || !strings.Contains(errs, "removed the container of handle") {
		t.Errorf("the next zctx: containers %q (had %q), stderr %q; want the killed one's removed, the running one's and the new one kept", got, before, errs)
	}
	b.Process.Kill()
	b.Wait()
	zctx(t, "", "destroy", h.ID)
	if got := ours(); len(got) != 0 {
		t.Errorf("after destroy (the second zctx killed too): %q, want none", got)
	}
	if claims, _ := filepath.Glob(filepath.Join(state, ".claim-*")); len(claims) != 0 {
		t.Errorf("claims left: %q", claims)
	}
}

// buildZctx builds zctx, for tests that need it as its own process.
func buildZctx(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "zctx")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startRun starts argv (a zctx run, flags and all) in dir with a command
// that says "up" and sleeps, and returns once it has said it; the
// process is killed at the test's end.
func startRun(t *testing.T, dir string, argv []string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], append(argv[1:], "--", "sh", "-c", "echo up; exec sleep 1000")...)
	cmd.Dir, cmd.Env = dir, os.Environ()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "up\n" {
		t.Fatalf("%q did not start its command: %q", argv, line)
	}
	return cmd
}

func tag(t *testing.T, state string) string {
	t.Helper()
	tag, err := stateTag(state, false)
	if err != nil {
		t.Fatal(err)
	}
	return tag
}

// The sweep removes only this state directory's orphans. Attack 1: the
// same path is another state directory (another machine or mount
// namespace on the same daemon; here the first directory moved away and
// a new one made in its place): the tag was the path's hash, so the new
// directory's zctx removed the old one's saved handle's container.
// Attack 2: that tag could be worked out, so a container zctx never made
// (an image's LABELs, or anyone creating one) with the labels removed.
// Both checked through the private dockerd's own API.
func TestSweepRemovesOnlyThisStateDirsOrphans(t *testing.T) {
	d := privateDocker(t)
	setup(t)
	state := os.Getenv("ZCTX_STATE_DIR")
	base := []string{"--context", "docker", "--docker-host", d.Host, "--image", dockertest.Image}
	cli, err := client.New(client.WithHost(d.Host))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	exists := func(id string) bool {
		_, err := cli.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
		return err == nil
	}
	spawn := func() string {
		code, out, errs := zctx(t, "", append([]string{"spawn"}, base...)...)
		var h struct {
			ID    string
			Extra map[string]string
		}
		if code != 0 || json.Unmarshal([]byte(out), &h) != nil || h.Extra["container"] == "" {
			t.Fatalf("spawn: %d %q %q", code, out, errs)
		}
		return h.Extra["container"]
	}
	first := spawn()
	t.Cleanup(func() { cli.ContainerRemove(context.Background(), first, client.ContainerRemoveOptions{Force: true}) })
	if err := os.Rename(state, state+".elsewhere"); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(state))
	forged, err := cli.ContainerCreate(context.Background(), client.ContainerCreateOptions{
		Config: &container.Config{Image: dockertest.Image, Cmd: []string{"sleep", "1000"}, Labels: map[string]string{
			docker.Label: "1", docker.LabelID: "h-notzctx", labelState: hex.EncodeToString(sum[:8]), labelClaim: "c-gone"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cli.ContainerRemove(context.Background(), forged.ID, client.ContainerRemoveOptions{Force: true})
	})
	second := spawn()
	if !exists(first) {
		t.Errorf("another state directory at the same path: its saved handle's container was removed")
	}
	if !exists(forged.ID) {
		t.Errorf("a container zctx never made, with labels anyone can work out, was removed")
	}
	if !exists(second) {
		t.Errorf("the new handle's container is gone")
	}
}

// Attack: a spawn that saves its handle and releases its claim while
// another zctx's sweep looks at its container. The sweep looked for the
// record first (none yet), then for the claim (gone by then), and removed
// the container of a handle just saved. The two steps are done exactly
// between the sweep's two looks; the container, seen through the private
// dockerd's API, must stay.
func TestSweepKeepsAContainerSavedDuringIt(t *testing.T) {
	d := privateDocker(t)
	setup(t)
	state := os.Getenv("ZCTX_STATE_DIR")
	code, out, errs := zctx(t, "", "spawn", "--context", "docker", "--docker-host", d.Host, "--image", dockertest.Image)
	var h struct {
		ID    string
		Extra map[string]string
	}
	if code != 0 || json.Unmarshal([]byte(out), &h) != nil {
		t.Fatalf("spawn: %d %q %q", code, out, errs)
	}
	defer zctx(t, "", "destroy", h.ID)
	cli, err := client.New(client.WithHost(d.Host))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	info, err := cli.ContainerInspect(context.Background(), h.Extra["container"], client.ContainerInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Back to the moment before the save: a live claim, no record.
	record := filepath.Join(state, h.ID+".json")
	os.Rename(record, record+".saving")
	claim := claimPath(state, info.Container.Config.Labels[labelClaim])
	os.WriteFile(claim, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	betweenLooks = func() { os.Rename(record+".saving", record); os.Remove(claim) }
	defer func() { betweenLooks = func() {} }()
	dc, err := docker.New(contexts.Options{Host: d.Host, Image: dockertest.Image})
	if err != nil {
		t.Fatal(err)
	}
	var sweepErr strings.Builder
	sweep(context.Background(), dc, state, &sweepErr)
	if _, err := cli.ContainerInspect(context.Background(), h.Extra["container"], client.ContainerInspectOptions{}); err != nil {
		t.Errorf("the container of a handle saved during the sweep was removed (%v): %q", err, sweepErr.String())
	}
}

// Attack: a zctx in another pid namespace (a container sharing this state
// directory and daemon) claims its container with its own pid, which
// names no process here: the next zctx took the claim for dead and
// removed the container of a run still going. A real `zctx run` in a new
// pid namespace (its pid set past this machine's pid_max), a real spawn
// outside; the container seen through the private dockerd's API.
func TestSweepKeepsAClaimFromAnotherPidNamespace(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root for a pid namespace")
	}
	d := privateDocker(t)
	dir := setup(t)
	state := os.Getenv("ZCTX_STATE_DIR")
	bin := buildZctx(t)
	base := []string{"--context", "docker", "--docker-host", d.Host, "--image", dockertest.Image}
	inner := "echo 3999990 > /proc/sys/kernel/ns_last_pid; \"$0\" \"$@\" & wait"
	startRun(t, dir, append([]string{"unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "sh", "-c", inner, bin, "run"}, base...))
	claims, _ := filepath.Glob(filepath.Join(state, ".claim-*"))
	if len(claims) != 1 {
		t.Fatalf("claims: %q", claims)
	}
	if b, _ := os.ReadFile(claims[0]); !strings.HasPrefix(string(b), "399999") {
		t.Fatalf("the claim %q does not name the pid set in the namespace", b)
	}
	cli, err := client.New(client.WithHost(d.Host))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	running := func() int {
		res, err := cli.ContainerList(context.Background(), client.ContainerListOptions{
			Filters: client.Filters{}.Add("label", labelState+"="+tag(t, state))})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Items)
	}
	if n := running(); n != 1 {
		t.Fatalf("containers of the run: %d", n)
	}
	code, sp, errs := zctx(t, "", append([]string{"spawn"}, base...)...)
	var h struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(sp), &h) != nil {
		t.Fatalf("spawn: %d %q %q", code, sp, errs)
	}
	defer zctx(t, "", "destroy", h.ID)
	if n := running(); n != 2 || strings.Contains(errs, "removed the container") {
		t.Errorf("after the next zctx: %d containers, stderr %q; want the live run's kept", n, errs)
	}
}
