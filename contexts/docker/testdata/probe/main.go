// Command probe makes the system calls the project's seccomp profile
// refuses and Docker's default profile of Debian's docker.io (20.10)
// allows, and prints each errno: the container test can then tell which
// profile is in force, not just that one is.
package main

import (
	"fmt"
	"syscall"
	"unsafe"
)

func main() {
	var params [120]byte                                                       // struct io_uring_params
	_, _, e := syscall.Syscall(425, 1, uintptr(unsafe.Pointer(&params[0])), 0) // io_uring_setup
	fmt.Printf("io_uring_setup=%d\n", e)
}
