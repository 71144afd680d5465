// Package zsbin gives tests the real zsandbox binary: $ZSANDBOX_BIN when
// set (CI passes the bin/zsandbox it built; it is copied), else one built from the main
// module. The build goes under the user's cache directory, never /tmp: a
// binary inside a writable root is exactly what the process context
// refuses to run.
package zsbin

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
)

// Build returns the binary's path and a cleanup function. $ZSANDBOX_BIN
// is copied too: a CI checkout under /tmp would put it in a writable root.
func Build() (string, func(), error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp(cache, "zctx-test-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	bin := filepath.Join(dir, "zsandbox")
	if given := os.Getenv("ZSANDBOX_BIN"); given != "" {
		data, err := os.ReadFile(given)
		if err == nil {
			err = os.WriteFile(bin, data, 0o755)
		}
		if err != nil {
			cleanup()
			return "", nil, fmt.Errorf("ZSANDBOX_BIN: %v", err)
		}
		return bin, cleanup, nil
	}
	main, err := filepath.Abs(filepath.Join(moduleRoot(), ".."))
	if err != nil {
		cleanup()
		return "", nil, err
	}
	cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, ".")
	cmd.Dir = main
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("go build zsandbox: %v\n%s", err, out)
	}
	return bin, cleanup, nil
}

// moduleRoot finds the contexts module's directory from the working
// directory of a test (a package directory inside it).
func moduleRoot() string {
	dir, _ := os.Getwd()
	for d := dir; d != "/"; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && containsModule(b) {
			return d
		}
	}
	return dir
}

func containsModule(gomod []byte) bool {
	const want = "module github.com/zsandbox/zsandbox/contexts"
	return len(gomod) >= len(want) && string(gomod[:len(want)]) == want
}

// Main is a TestMain: *bin gets the binary for the tests' run. Run as
// root with unprivileged set (a -test.run pattern: the security tests),
// the tests it names run a second time as the unprivileged user
// zsandbox-test (see AsUser): the attacks must fail for both.
func Main(m *testing.M, bin *string, unprivileged string) {
	b, cleanup, err := Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = b
	code := m.Run()
	if code == 0 && unprivileged != "" && os.Getuid() == 0 {
		code = AsUser(b, unprivileged)
	}
	cleanup()
	os.Exit(code)
}

// TestUser is the unprivileged account of the project's tests.
const TestUser = "zsandbox-test"

// AsUser re-runs this test binary as TestUser, with its own home (and so
// its own cache, where the child copies zsandbox) in a fresh directory
// under /var/lib, never /tmp, a writable root of every command. It runs
// the tests that pattern names, or those the parent's -test.run names.
// A missing user is a failure under ZSANDBOX_MUST_ENFORCE=1, else a note.
func AsUser(zsandbox, pattern string) int {
	u, err := user.Lookup(TestUser)
	if err != nil {
		fmt.Fprintf(os.Stderr, "unprivileged run: %v\n", err)
		if os.Getenv("ZSANDBOX_MUST_ENFORCE") == "1" {
			return 1
		}
		return 0
	}
	dir, err := os.MkdirTemp("/var/lib", "zctx-unpriv-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "unprivileged run:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	self, _ := os.Executable()
	// The test binary alone in its directory: a zsandbox next to it is
	// what the process context would find first.
	test, zs := filepath.Join(dir, "bin", "test"), filepath.Join(dir, "zsandbox")
	os.Mkdir(filepath.Dir(test), 0o755)
	for _, c := range [][2]string{{self, test}, {zsandbox, zs}} {
		if err := copyFile(c[0], c[1]); err != nil {
			fmt.Fprintln(os.Stderr, "unprivileged run:", err)
			return 1
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		fmt.Fprintln(os.Stderr, "unprivileged run:", err)
		return 1
	}
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		pattern = f.Value.String()
	}
	args := []string{"--reuid=" + u.Uid, "--regid=" + u.Gid, "--clear-groups", test, "-test.run=" + pattern, "-test.count=1"}
	if f := flag.Lookup("test.v"); f != nil && f.Value.String() == "true" {
		args = append(args, "-test.v")
	}
	cmd := exec.Command("setpriv", args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "ZSANDBOX_BIN=" + zs,
		"ZSANDBOX_MUST_ENFORCE=" + os.Getenv("ZSANDBOX_MUST_ENFORCE")}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	fmt.Printf("=== the same tests as %s (%s)\n", TestUser, pattern)
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "unprivileged run as %s: %v\n", TestUser, err)
		return 1
	}
	return 0
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}
