package main

import (
	"os"
	"strconv"
	"strings"
)

// overflowUID is the uid that owners outside the user namespace show as,
// when this namespace does not map every uid (inside bwrap --unshare-user,
// or unshare -r): root's files carry it there. -1 in the initial
// namespace.
func overflowUID() int {
	m, err := os.ReadFile("/proc/self/uid_map")
	if err != nil || strings.Join(strings.Fields(string(m)), " ") == "0 0 4294967295" {
		return -1
	}
	b, err := os.ReadFile("/proc/sys/kernel/overflowuid")
	if err != nil {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return -1
	}
	return n
}
