package policy

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// kernelFS are the file systems that are the kernel's own interfaces: a
// writable one is a way out (as root, procfs's core_pattern runs a program
// on the host; devtmpfs holds the raw disks). The sandbox mounts its own
// /proc and /dev and keeps /sys read-only, but a writable root is bound
// with every mount below it, so one that holds a second mount of these (a
// build chroot's proc, a container's rootfs) would bind the host's copy
// writable.
var kernelFS = map[string]bool{
	"proc": true, "sysfs": true, "devtmpfs": true, "devpts": true, "debugfs": true, "tracefs": true,
	"securityfs": true, "cgroup": true, "cgroup2": true, "bpf": true, "configfs": true,
	"efivarfs": true, "pstore": true, "binfmt_misc": true, "fusectl": true, "selinuxfs": true,
}

// mountInfo is where the kernel lists this process's mounts; a test points
// it at a fixture.
var mountInfo = "/proc/self/mountinfo"

// kernelMount is one mount of a kernel file system.
type kernelMount struct{ point, fstype string }

// kernelMounts lists the mounts of kernel file systems. Where there is no
// mountinfo (macOS) there is no such mount to bind.
func kernelMounts() []kernelMount {
	data, err := os.ReadFile(mountInfo)
	if err != nil {
		return nil
	}
	return parseKernelMounts(string(data))
}

// parseKernelMounts reads mountinfo lines ("ID PARENT MAJ:MIN ROOT POINT
// OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS") and keeps the kernel
// file systems. Only their lines are split: a host with thousands of
// container mounts costs one scan.
func parseKernelMounts(data string) []kernelMount {
	var out []kernelMount
	for line := range strings.Lines(data) {
		_, after, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		fstype, _, _ := strings.Cut(after, " ")
		if !kernelFS[fstype] {
			continue
		}
		if fields := strings.Fields(line); len(fields) > 4 {
			out = append(out, kernelMount{point: unescapeMount(fields[4]), fstype: fstype})
		}
	}
	return out
}

// unescapeMount decodes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// kernelMountIn says why root may not be a writable root because of the
// kernel mounts: one lies below it, or it lies inside one. Those in the
// kernel's own places (/proc, /sys, /dev) need no look: a root is never
// above them but for "/", and never inside them (kernelTree).
func kernelMountIn(root string, mounts []kernelMount) string {
	for _, m := range mounts {
		if kernelTree(m.point) == "" && (Within(m.point, root) || Within(root, m.point)) {
			return fmt.Sprintf("would bind the %s mount at %q writable: a second copy of the host's kernel interfaces (as in a build chroot)", m.fstype, m.point)
		}
	}
	return ""
}
