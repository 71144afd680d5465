package bwrap

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zsandbox/zsandbox/policy"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func basePolicy() *policy.Policy {
	return &policy.Policy{
		Cwd:  "/home/u/proj",
		Home: "/home/u",
		Writable: []policy.Root{
			{Path: "/tmp", Source: policy.SourceDefault},
			{Path: "/var/tmp", Source: policy.SourceDefault},
			{Path: "/home/u/proj", Source: policy.SourceCwd},
		},
		Hidden: []policy.Hidden{
			{Path: "/home/u/.ssh", Exists: true, IsDir: true},
			{Path: "/home/u/.aws"},
			{Path: "/home/u/.netrc", Exists: true},
			{Path: "/home/u/.docker/config.json", Exists: true},
		},
		Network: policy.NetworkDeny,
	}
}

func protectedPolicy() *policy.Policy {
	p := basePolicy()
	p.Protected = []policy.Protected{
		{Path: "/home/u/proj/.git/config", Root: "/home/u/proj", Exists: true},
		{Path: "/home/u/proj/.git/hooks", Root: "/home/u/proj"},
		{Path: "/home/u/proj/sub/.git/hooks", Root: "/home/u/proj", Exists: true},
	}
	return p
}

func TestPins(t *testing.T) {
	got := Pins(protectedPolicy().Protected)
	want := []string{"/home/u/proj/.git", "/home/u/proj/sub", "/home/u/proj/sub/.git"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Pins mismatch (-got +want):\n%s", diff)
	}
}

// A missing path the caller cannot create gets no bind of its own: its
// anchor is pinned, with the directories above it.
func TestAnchorPinnedNotBound(t *testing.T) {
	p := basePolicy()
	p.Protected = []policy.Protected{{Path: "/home/u/proj/vendor/sub/.envrc", Root: "/home/u/proj", Anchor: "/home/u/proj/vendor/sub"}}
	if diff := cmp.Diff(Pins(p.Protected), []string{"/home/u/proj/vendor", "/home/u/proj/vendor/sub"}); diff != "" {
		t.Errorf("Pins mismatch (-got +want):\n%s", diff)
	}
	args := strings.Join(Args(p, []string{"true"}, Options{}).Args, " ")
	if strings.Contains(args, ".envrc") || !strings.Contains(args, "/home/u/proj/vendor/sub") {
		t.Errorf("want the anchor bound onto itself and no bind of the missing path; got %s", args)
	}
}

func TestArgsGolden(t *testing.T) {
	allow := basePolicy()
	allow.Network = policy.NetworkAllow
	home := basePolicy()
	home.Cwd = "/home/u"
	home.Writable[2] = policy.Root{Path: "/home/u", Source: policy.SourceCwd}
	tests := []struct {
		name string
		p    *policy.Policy
		o    Options
	}{
		{"deny", basePolicy(), Options{}},
		{"allow", allow, Options{}},
		{"cwd-home", home, Options{}},
		{"seccomp-protected", protectedPolicy(), Options{Seccomp: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan := Args(tc.p, []string{"sh", "-c", "echo hi"}, tc.o)
			got := strings.Join(plan.Args, "\n") + "\n--\n" + strings.Join(plan.Command, "\n") + "\n"
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, string(want)); diff != "" {
				t.Errorf("Args(%s) mismatch (-got +want):\n%s", tc.name, diff)
			}
		})
	}
}

// TestArgsOrder holds the invariants the golden files show: the base view
// first, writable binds before protected re-binds, masks after both.
func TestArgsOrder(t *testing.T) {
	home := basePolicy()
	home.Writable = append(home.Writable, policy.Root{Path: "/home/u", Source: policy.SourceFlag})
	home.Protected = []policy.Protected{{Path: "/home/u/.bashrc", Root: "/home/u", Exists: true}}
	plan := Args(home, []string{"true"}, Options{})
	// idx finds "opt SOURCE dest" (or "opt dest dest" for plain binds).
	idx := func(opt, dest string) int {
		for i := 0; i+2 < len(plan.Args); i++ {
			if plan.Args[i] == opt && plan.Args[i+2] == dest {
				return i
			}
		}
		t.Fatalf("%s ... %s not in plan %q", opt, dest, plan.Args)
		return -1
	}
	base := idx("--ro-bind", "/")
	bind := idx("--bind-fd", "/home/u")
	pin := idx("--bind-fd", "/home/u/.docker")
	prot := idx("--ro-bind-fd", "/home/u/.bashrc")
	mask := idx("--perms", "--tmpfs") // the mask of /home/u/.ssh, the only directory mask
	if !(base < bind && bind < pin && pin < prot && prot < mask) {
		t.Errorf("order base=%d bind=%d pin=%d protected=%d mask=%d, want increasing", base, bind, pin, prot, mask)
	}
	empty := 0
	for i, src := range plan.Files {
		fd := strconv.Itoa(FirstFileFD + i)
		if src == "" {
			empty++
			continue
		}
		// Each bind's descriptor is opened from the very path it is bound on.
		for j := 0; j+2 < len(plan.Args); j++ {
			if plan.Args[j+1] == fd && strings.HasSuffix(plan.Args[j], "-fd") && plan.Args[j+2] != src {
				t.Errorf("fd %s opens %q but is bound on %q", fd, src, plan.Args[j+2])
			}
		}
	}
	if empty != 2 {
		t.Errorf("%d empty files, want 2 (one per existing hidden file)", empty)
	}
}
