package denymsg_test

import (
	"fmt"
	"io"
	"os"

	"github.com/zsandbox/zsandbox/denymsg"
)

func Example() {
	r := denymsg.New(denymsg.Facts{
		Writable:    []string{"/home/u/proj", "/tmp", "/var/tmp"},
		Hidden:      []string{"/home/u/.ssh"},
		NetworkDeny: true,
		Cwd:         "/home/u/proj",
	})

	// zsandbox exec tees each pipe of the command: the bytes go on unchanged,
	// the recogniser watches them on the side.
	stderr := io.MultiWriter(io.Discard, r.Stream())
	fmt.Fprintln(stderr, "touch: cannot touch '/etc/motd': Read-only file system")
	fmt.Fprintln(stderr, "cat: /home/u/.ssh/id_ed25519: Permission denied")

	for _, line := range r.Hints(denymsg.Exit{Code: 1}) {
		fmt.Fprintln(os.Stdout, line)
	}
	// Output:
	// zsandbox: hint: /home/u/.ssh is hidden by the sandbox on purpose (credentials)
	// zsandbox: hint: /etc/motd is outside the writable roots; writes are allowed only under /home/u/proj, /tmp, /var/tmp; add --writable PATH (or ZSANDBOX_WRITABLE) to allow more
}
