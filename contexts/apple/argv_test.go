package apple

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zsandbox/zsandbox/contexts"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares argv, one argument per line, with testdata/NAME.
func golden(t *testing.T, name string, argv []string) {
	t.Helper()
	got := strings.Join(argv, "\n") + "\n"
	file := filepath.Join("testdata", name+".argv")
	if *update {
		os.WriteFile(file, []byte(got), 0o644)
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, diff)
	}
}

func TestArgvGolden(t *testing.T) {
	full := contexts.Options{Image: "python:3.12", Limits: contexts.Limits{MemoryMiB: 2048, CPUs: 1.5},
		Mounts: []contexts.Mount{{Source: "/Users/u/proj", Target: "/workspace"}, {Source: "/Users/u/data", Target: "/data", ReadOnly: true}}}
	golden(t, "run-defaults", runArgs("zctx-a-1", "a-1", contexts.Options{}, "/workspace", nil, ""))
	golden(t, "run-full", runArgs("zctx-a-1", "a-1", full, "/workspace", []string{"CI=1", "A=b c"}, runUser(full, 501, 20)))
	golden(t, "run-network-allow", runArgs("zctx-a-1", "a-1", contexts.Options{Network: contexts.NetworkAllow, User: "1000:1000",
		Ports: []contexts.Port{{ContainerPort: 3000}, {HostIP: "0.0.0.0", HostPort: 8080, ContainerPort: 80, Proto: "udp"}}}, "/app", nil, "1000:1000"))
	golden(t, "exec", execArgs("zctx-a-1", "/workspace/sub dir", "501:20", []string{"ZCTX_EXEC=m"}, true, false, []string{"sh", "-c", "echo $(x); 'q'"}))
	golden(t, "exec-tty", execArgs("zctx-a-1", "/workspace", "", nil, true, true, []string{"/bin/sh", "-l"}))
	golden(t, "rm", rmArgs("zctx-a-1"))
	golden(t, "ls", listArgs())
	golden(t, "detect", append(versionArgs(), statusArgs()...))
}

// find reads the JSON `container ls --format json` prints (shape from
// apple/container's ContainerSnapshot; checked on a Mac by ci-macos.sh).
func TestFind(t *testing.T) {
	listing := []byte(`[{"status":"running","configuration":{"id":"zctx-a-1","image":{"reference":"x"}},"networks":[]},
	{"status":"stopped","configuration":{"id":"zctx-a-2"}}]`)
	for name, want := range map[string][2]bool{"zctx-a-1": {true, true}, "zctx-a-2": {false, true}, "zctx-a-3": {false, false}} {
		running, present, err := find(listing, name)
		if err != nil || running != want[0] || present != want[1] {
			t.Errorf("find(%s) = %v %v %v, want %v", name, running, present, err, want)
		}
	}
	if _, _, err := find([]byte("not json"), "x"); err == nil {
		t.Errorf("find(garbage): no error")
	}
}

// Attack: an image name that is an option of the CLI (`container run …
// --volume=/:/host sleep infinity` would bind the host's root). It is
// refused before the CLI runs: the stand-in CLI records any call.
func TestImageThatIsAFlag(t *testing.T) {
	dir := t.TempDir()
	called := filepath.Join(dir, "called")
	cli := filepath.Join(dir, "container")
	os.WriteFile(cli, []byte("#!/bin/sh\necho \"$@\" >> "+called+"\n"), 0o755)
	c, _ := New(contexts.Options{Image: "--volume=/:/host", Extra: map[string]string{"container": cli}})
	if _, err := c.Spawn(context.Background(), contexts.SpawnConfig{}); !errors.Is(err, contexts.ErrUsage) {
		t.Errorf("Spawn with image %q = %v, want ErrUsage", "--volume=/:/host", err)
	}
	if b, err := os.ReadFile(called); err == nil {
		t.Errorf("the CLI ran with the flag-looking image: %q", b)
	}
}

// Where a `container` on PATH could have been planted: a directory of the
// caller's, home, the temporary directories. A root-owned system binary
// could not.
func TestPlantable(t *testing.T) {
	dir := t.TempDir()
	for _, bin := range []string{filepath.Join(dir, "container"), "/tmp/container", "/home/u/bin/container"} {
		if why := plantable(bin, "/home/u", ""); why == "" {
			t.Errorf("plantable(%s) = \"\", want a reason", bin)
		}
	}
	if sh, err := filepath.EvalSymlinks("/bin/sh"); err == nil {
		if why := plantable(sh, "/home/u", ""); why != "" {
			t.Errorf("plantable(%s) = %q, want \"\" (root's system binary)", sh, why)
		}
	}
}
