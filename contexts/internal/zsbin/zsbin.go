// Package zsbin gives tests the real zsandbox binary: $ZSANDBOX_BIN when
// set (CI passes the bin/zsandbox it built; it is copied), else one built from the main
// module. The build goes under the user's cache directory, never /tmp: a
// binary inside a writable root is exactly what the process context
// refuses to run.
package zsbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// Main is a TestMain: *bin gets the binary for the tests' run.
func Main(m *testing.M, bin *string) {
	b, cleanup, err := Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*bin = b
	code := m.Run()
	cleanup()
	os.Exit(code)
}
