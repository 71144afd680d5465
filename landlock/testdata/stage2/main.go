// Command stage2 is the smallest program that runs landlock.Stage2, as
// zsandbox's main does first thing; the benchmarks time it.
package main

import (
	"os"

	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/landlock"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == landlock.Stage2Arg {
		exit.Exit(landlock.Stage2(os.Args[2:]))
	}
	os.Stderr.WriteString("usage: stage2 __stage2 CONFIG... -- COMMAND [ARG...]\n")
	os.Exit(2)
}
