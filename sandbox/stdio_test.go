//go:build linux || darwin

package sandbox

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/policy"
)

func TestKindOf(t *testing.T) {
	null, tty, kmsg := unix.Mkdev(1, 3), unix.Mkdev(136, 0), unix.Mkdev(1, 11)
	tests := []struct {
		name     string
		mode     uint32
		rdev     uint64
		oPath    bool
		terminal bool
		free     bool
		want     streamKind
	}{
		{"pipe", unix.S_IFIFO, 0, false, false, false, kindStream},
		{"socket", unix.S_IFSOCK, 0, false, false, false, kindStream},
		{"datagram or unconnected socket", unix.S_IFSOCK, 0, false, false, true, kindFreeSocket},
		{"terminal", unix.S_IFCHR, tty, false, true, false, kindStream},
		{"/dev/null", unix.S_IFCHR, null, false, false, false, kindStream},
		{"/dev/kmsg", unix.S_IFCHR, kmsg, false, false, false, kindFile},
		{"regular file", unix.S_IFREG, 0, false, false, false, kindFile},
		{"block device", unix.S_IFBLK, unix.Mkdev(8, 0), false, false, false, kindFile},
		{"directory", unix.S_IFDIR, 0, false, false, false, kindRefused},
		{"O_PATH file", unix.S_IFREG, 0, true, false, false, kindRefused},
		{"O_PATH symlink", unix.S_IFLNK, 0, true, false, false, kindRefused},
	}
	for _, tc := range tests {
		if got, _ := kindOf(tc.mode|0o644, tc.rdev, tc.oPath, tc.terminal, tc.free); got != tc.want {
			t.Errorf("kindOf(%s) = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestStdioPlan: what reaches the command is a stream; a file is copied
// unless Landlock fences a read-only stdin, or the backend runs in place
// (then Landlock checks every reopening, and a writable stdin is refused).
func TestStdioPlan(t *testing.T) {
	tests := []struct {
		name            string
		s               stdStream
		fenced, inPlace bool
		want            streamUse
		err             string
	}{
		{"pipe", stdStream{fd: 0, kind: kindStream}, false, false, usePass, ""},
		{"stdin file, fenced", stdStream{fd: 0, kind: kindFile}, true, false, usePass, ""},
		{"stdin file, landlock off", stdStream{fd: 0, kind: kindFile}, false, false, useCopy, ""},
		{"stdin file read-write, fenced", stdStream{fd: 0, kind: kindFile, writable: true}, true, false, useCopy, ""},
		{"stdout file, fenced", stdStream{fd: 1, kind: kindFile, writable: true}, true, false, useCopy, ""},
		{"stderr file", stdStream{fd: 2, kind: kindFile, writable: true}, false, false, useCopy, ""},
		{"stdin directory", stdStream{fd: 0, kind: kindRefused, what: "a directory"}, true, false, 0, "stdin is a directory"},
		{"stdout directory", stdStream{fd: 1, kind: kindRefused, what: "a directory"}, true, false, 0, "1>/dev/null"},
		{"in place, stdin file", stdStream{fd: 0, kind: kindFile}, false, true, usePass, ""},
		{"in place, stdout file", stdStream{fd: 1, kind: kindFile, writable: true}, false, true, usePass, ""},
		{"in place, stdin read-write", stdStream{fd: 0, kind: kindFile, writable: true}, false, true, 0, "open for writing"},
		{"in place, directory", stdStream{fd: 2, kind: kindRefused, what: "a directory"}, false, true, 0, "stderr is a directory"},
		{"stdin datagram socket", stdStream{fd: 0, kind: kindFreeSocket}, true, false, useCopy, ""},
		{"in place, stdin datagram socket", stdStream{fd: 0, kind: kindFreeSocket}, false, true, 0, "datagram or unconnected socket"},
	}
	for _, tc := range tests {
		got, err := stdioPlan(tc.s, tc.fenced, tc.inPlace)
		var ee *exit.Error
		switch {
		case tc.err != "" && (!errors.As(err, &ee) || ee.Code != exit.UsageCode || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("stdioPlan(%s) error = %v, want a usage error containing %q", tc.name, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("stdioPlan(%s) = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
}

// TestFencedReopen: a stdin file under a protected or hidden path, with
// other links, or at an unknown path is copied, not passed.
func TestFencedReopen(t *testing.T) {
	p := &policy.Policy{
		Writable:  []policy.Root{{Path: "/h/proj"}},
		Protected: []policy.Protected{{Path: "/h/proj/.git/config"}, {Path: "/h/proj/.git/hooks"}},
		Hidden:    []policy.Hidden{{Path: "/h/proj/.env", Exists: true}},
	}
	for _, tc := range []struct {
		path  string
		nlink uint64
		want  bool
	}{
		{"/h/proj/list", 1, true},
		{"/elsewhere/list", 1, true},
		{"/h/proj/.git/config", 1, false},
		{"/h/proj/.git/hooks/pre-commit", 1, false},
		{"/h/proj/.env", 1, false},
		{"/h/proj/list", 2, false},
		{"", 1, false},
	} {
		if got := fencedReopen(stdStream{fd: 0, kind: kindFile, path: tc.path, nlink: tc.nlink}, p); got != tc.want {
			t.Errorf("fencedReopen(%q, %d links) = %v, want %v", tc.path, tc.nlink, got, tc.want)
		}
	}
}
