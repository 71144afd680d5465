//go:build linux

package harness

import (
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Bwrap is the bwrap on PATH; without one the test fails under
// ZSANDBOX_MUST_ENFORCE=1 and skips otherwise.
func Bwrap(t *testing.T) string {
	t.Helper()
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		if os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" {
			t.Fatal("bwrap not installed")
		}
		t.Skip("bwrap not installed")
	}
	return bwrap
}

// LeakedFDs reads "ls -l /proc/self/fd" and returns the descriptors above
// stderr other than the one ls opened to list the directory.
func LeakedFDs(ls string) string {
	var fds []int
	for _, line := range strings.Split(ls, "\n") {
		before, target, ok := strings.Cut(line, " -> ")
		fields := strings.Fields(before)
		if !ok || len(fields) == 0 || strings.HasSuffix(target, "/fd") {
			continue
		}
		if n, err := strconv.Atoi(fields[len(fields)-1]); err == nil && n > 2 {
			fds = append(fds, n)
		}
	}
	sort.Ints(fds)
	var b strings.Builder
	for _, n := range fds {
		b.WriteString(strconv.Itoa(n) + " ")
	}
	return b.String()
}

// ErrnoFilter is a classic BPF seccomp program, in the binary form bwrap
// --seccomp reads, that fails system call nr with errno and allows
// everything else: it makes, for one process, a kernel where that call
// fails (landlock_create_ruleset with ENOSYS: a kernel without Landlock,
// or a --seccomp-profile refusing it).
func ErrnoFilter(t *testing.T, nr uintptr, errno unix.Errno) *os.File {
	t.Helper()
	arch := map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]
	if arch == 0 {
		t.Skipf("no seccomp arch for %s", runtime.GOARCH)
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	prog := []unix.SockFilter{
		{Code: ld, K: 4}, // seccomp_data.arch
		{Code: jeq, K: arch, Jf: 3},
		{Code: ld, K: 0}, // seccomp_data.nr
		{Code: jeq, K: uint32(nr), Jf: 1},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(errno)},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(prog)*int(unsafe.Sizeof(prog[0])))
	file, err := os.CreateTemp(t.TempDir(), "seccomp-*.bpf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	if _, err := file.Write(raw); err != nil {
		t.Fatal(err)
	}
	if _, err := file.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	return file
}

// ENOSYSFilter is ErrnoFilter for landlock_create_ruleset and ENOSYS.
func ENOSYSFilter(t *testing.T) *os.File {
	return ErrnoFilter(t, unix.SYS_LANDLOCK_CREATE_RULESET, unix.ENOSYS)
}
