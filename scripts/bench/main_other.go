//go:build !linux

// Command bench times zsandbox's Linux backend against the bubblewrap line
// it runs; see docs/benchmarks.md. It runs on Linux only.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "bench: the process benchmark measures the bubblewrap backend and runs on Linux only")
	os.Exit(1)
}
