package landlock_test

import (
	"fmt"

	"github.com/zsandbox/zsandbox/landlock"
)

// The fence for a project on a kernel with Landlock ABI 4 (Linux 6.7):
// writes and TCP are fenced, scoping needs ABI 6, so --landlock require
// would refuse to run.
func ExampleRules() {
	c := landlock.Config{Mode: landlock.ModeAuto, Writable: []string{"/home/u/proj"}, NetworkDeny: true}
	rs := landlock.Rules(c, 4)
	for _, p := range rs.Paths[:2] {
		fmt.Printf("%s: %s\n", p.Path, p.Access)
	}
	fmt.Println("net:", rs.HandledNet)
	for _, g := range rs.Gaps {
		fmt.Printf("missing (ABI %d, required %v): %s\n", g.ABI, g.Required, g.What)
	}
	fmt.Println(landlock.Check(landlock.Config{Mode: landlock.ModeRequire, NetworkDeny: true}, 4))
	// Output:
	// /: execute read_file read_dir
	// /home/u/proj: execute write_file read_file read_dir remove_dir remove_file make_char make_dir make_reg make_sock make_fifo make_block make_sym refer truncate
	// net: bind_tcp connect_tcp
	// missing (ABI 6, required true): signals to processes outside the sandbox
	// missing (ABI 6, required true): connections to abstract unix sockets outside the sandbox
	// missing (ABI 9, required false): connections to pathname unix sockets made outside the sandbox
	// missing (ABI 10, required false): UDP bind and send
	// --landlock require: the kernel offers Landlock ABI 4, the policy needs ABI 6 (missing: signals to processes outside the sandbox; connections to abstract unix sockets outside the sandbox)
}
