//go:build linux

package alone

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// capSetPCAP is CAP_SETPCAP, needed to shrink the bounding set.
const capSetPCAP = 8

// dropPrivileges sets no_new_privs and drops every capability of the
// calling thread, then checks that the kernel agrees. Like every
// credential change it applies to this thread only, which is the one that
// execve's the command (see Exec).
//
// No capability survives execve: the permitted, effective, inheritable and
// ambient sets are emptied, and so is the bounding set when the thread
// holds CAP_SETPCAP (root does), so uid 0 gets nothing back at execve.
// Without CAP_SETPCAP the bounding set stays, and no_new_privs alone keeps
// execve from granting anything (setuid and file capabilities included).
// Root keeps uid 0: file permissions still apply, and Landlock the rest.
func dropPrivileges() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	caps, err := capGet()
	if err != nil {
		return err
	}
	last, err := lastCap()
	if err != nil {
		return err
	}
	bounding := caps.has(capSetPCAP)
	if bounding {
		if err := dropBounding(caps, last); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	if err := capSet(capSets{}); err != nil {
		return err
	}
	return checkDropped(last, bounding)
}

// dropBounding empties the bounding set, with CAP_SETPCAP made effective.
func dropBounding(caps capSets, last int) error {
	caps.effective = caps.permitted
	if err := capSet(caps); err != nil {
		return err
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
		}
	}
	return nil
}

// checkDropped asks the kernel what the thread holds now and refuses
// anything but nothing.
func checkDropped(last int, bounding bool) error {
	caps, err := capGet()
	if err != nil {
		return err
	}
	if caps != (capSets{}) {
		return fmt.Errorf("capabilities remain after dropping them: %+v", caps)
	}
	if v, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); err != nil || v != 1 {
		return fmt.Errorf("no_new_privs is not set (%d, %v)", v, err)
	}
	for c := 0; c <= last; c++ {
		amb, err := unix.PrctlRetInt(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_IS_SET, uintptr(c), 0, 0)
		if err != nil || amb != 0 {
			return fmt.Errorf("ambient capability %d remains (%v)", c, err)
		}
		if !bounding {
			continue
		}
		if in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); err != nil || in != 0 {
			return fmt.Errorf("capability %d remains in the bounding set (%v)", c, err)
		}
	}
	return nil
}

// capSets are the thread's capability sets, 64 bits each.
type capSets struct {
	permitted, effective, inheritable uint64
}

func (c capSets) has(n int) bool {
	return (c.permitted|c.effective)&(1<<n) != 0
}

func capGet() (capSets, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var d [2]unix.CapUserData
	if err := unix.Capget(&hdr, &d[0]); err != nil {
		return capSets{}, fmt.Errorf("capget: %w", err)
	}
	join := func(lo, hi uint32) uint64 { return uint64(hi)<<32 | uint64(lo) }
	return capSets{
		permitted:   join(d[0].Permitted, d[1].Permitted),
		effective:   join(d[0].Effective, d[1].Effective),
		inheritable: join(d[0].Inheritable, d[1].Inheritable),
	}, nil
}

func capSet(c capSets) error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	d := [2]unix.CapUserData{
		{Effective: uint32(c.effective), Permitted: uint32(c.permitted), Inheritable: uint32(c.inheritable)},
		{Effective: uint32(c.effective >> 32), Permitted: uint32(c.permitted >> 32), Inheritable: uint32(c.inheritable >> 32)},
	}
	if err := unix.Capset(&hdr, &d[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// lastCap is the kernel's highest capability number, from
// /proc/sys/kernel/cap_last_cap, or, where /proc is missing, the last one
// the bounding set knows.
func lastCap() (int, error) {
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n >= 0 && n < 64 {
			return n, nil
		}
		return 0, fmt.Errorf("/proc/sys/kernel/cap_last_cap: unexpected %q", b)
	}
	for c := 0; c < 64; c++ {
		_, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			if c == 0 {
				break
			}
			return c - 1, nil
		}
	}
	return 0, errors.New("cannot tell the last capability: /proc/sys/kernel/cap_last_cap is unreadable")
}
