//go:build linux

package main

import (
	"bufio"
	"debug/buildinfo"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// machine is what the report says about where and how it was measured.
type machine struct {
	date, cpu, kernel, bwrap, goHarness, goBinary string
	version                                       string // zsandbox version
	nproc, landlockABI                            int
	load                                          [2]string // before, after
	elapsed                                       time.Duration
	runs, warmup, rssRuns                         int
}

func machineFacts(bin string) machine {
	m := machine{
		date:  time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		cpu:   cpuModel(),
		nproc: runtime.NumCPU(), goHarness: runtime.Version(),
		landlockABI: landlockABI(),
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = strings.TrimSpace(string(b))
	}
	if out, err := exec.Command("bwrap", "--version").Output(); err == nil {
		m.bwrap = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command(bin, "version").Output(); err == nil {
		m.version = strings.TrimSpace(string(out))
	}
	if info, err := buildinfo.ReadFile(bin); err == nil {
		m.goBinary = info.GoVersion
	}
	return m
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}
