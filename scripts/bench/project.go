//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// absBinary returns bin as an absolute path, checking it can be executed.
func absBinary(bin string) (string, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || fi.Mode()&0o111 == 0 {
		return "", fmt.Errorf("%q is not an executable file (build it with scripts/build.sh)", bin)
	}
	return abs, nil
}

// makeProject creates a small git repository in a fresh temporary
// directory: the cwd of every run, so it is a writable root in the sandbox.
// The file f holds "hi\n", what the sh case writes, so git status reports
// a clean tree whichever command ran last.
func makeProject() (dir string, cleanup func(), err error) {
	base, err := os.MkdirTemp("", "zsandbox-bench-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(base) }
	if base, err = filepath.EvalSymlinks(base); err != nil {
		cleanup()
		return "", nil, err
	}
	dir = filepath.Join(base, "proj")
	if err := writeProject(dir); err != nil {
		cleanup()
		return "", nil, err
	}
	return dir, cleanup, nil
}

func writeProject(dir string) error {
	files := map[string]string{"f": "hi\n", "README.md": "# bench\n", "go.mod": "module example.com/bench\n"}
	for i := 0; i < 20; i++ {
		files[fmt.Sprintf("pkg%d/file%d.go", i%4, i)] = fmt.Sprintf("package pkg%d\n\nconst C%d = %d\n", i%4, i, i)
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "."},
		{"-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-q", "-m", "init"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}
