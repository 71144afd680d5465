//go:build linux && cgo

package netns

// In a cgo build the role runs in C (role_linux.c), before the Go runtime
// starts; Role (Go) is what builds without cgo run. This file only links
// the C code in.

/*
#cgo zsandbox_test CFLAGS: -DZS_NETNS_TEST
int zs_netns_active(void);
*/
import "C"

// cRole reports whether the C role takes over RoleArg in this binary.
func cRole() bool { return C.zs_netns_active() != 0 }
