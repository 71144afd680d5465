package process

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// fdPath is the path the kernel gives the opened file (symlinks resolved).
func fdPath(f *os.File) (string, error) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, " (deleted)") {
		return "", fmt.Errorf("no path for %q (%s)", f.Name(), p)
	}
	return p, nil
}
