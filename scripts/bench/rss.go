//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Peak RSS comes from wait4's rusage (ru_maxrss) of the measured process,
// which covers that process only, not its children (bwrap, the command).
// But exec records the high-water RSS of the image it replaces, and Go
// starts children with vfork, so that image is the parent's: a child of
// the harness would report at least the harness's own peak. So the
// harness measures RSS in separate runs through a small helper, itself
// (rssChildArg), which starts the process and reports its ru_maxrss on
// fd 3. What the helper carries over is the floor: the bare `true` row.

const rssChildArg = "-rss-child"

// rssChild runs argv (argv[0] a path) with the helper's stdio, cwd and
// environment, writes its ru_maxrss in KiB to fd 3, and exits with its
// status.
func rssChild(argv []string) {
	report := os.NewFile(3, "rss")
	syscall.CloseOnExec(3)
	wd, _ := os.Getwd()
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{Dir: wd, Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: %s: %v\n", argv[0], err)
		os.Exit(127)
	}
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		if _, err = syscall.Wait4(pid, &ws, 0, &ru); err != syscall.EINTR {
			break
		}
	}
	fmt.Fprintln(report, ru.Maxrss)
	report.Close()
	if ws.Signaled() {
		os.Exit(128 + int(ws.Signal()))
	}
	os.Exit(ws.ExitStatus())
}

// rssRounds runs each variant that reports RSS n times through the helper,
// interleaved like rounds.
func rssRounds(suites []*suite, n int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	for r := 0; r < n; r++ {
		for _, s := range suites {
			for i, v := range s.variants {
				if !v.rss {
					continue
				}
				kib, err := measureRSS(self, v)
				if err != nil {
					return fmt.Errorf("peak RSS, %s %q: %v", v.label, s.argv, err)
				}
				s.rss[i] = append(s.rss[i], kib)
			}
		}
	}
	return nil
}

func measureRSS(self string, v *variant) (int64, error) {
	cmd := v.launch()
	if len(cmd.ExtraFiles) > 0 {
		return 0, fmt.Errorf("the RSS helper passes no descriptors")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	cmd.Args = append([]string{self, rssChildArg, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = self
	cmd.ExtraFiles = []*os.File{w}
	_, err = runChecked(cmd)
	w.Close()
	if err != nil {
		return 0, err
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}
