package alone_test

import (
	"errors"
	"fmt"

	"github.com/zsandbox/zsandbox/alone"
)

// Run from the home directory, the Landlock-only backend cannot keep ~/.ssh
// hidden: Landlock rules only add access, and the rule on the writable
// root would grant it. Nothing runs.
func ExampleCheck() {
	c := alone.Config{Writable: []string{"/home/u", "/tmp"}, Hidden: []string{"/home/u/.ssh"}, NetworkDeny: true}
	err := alone.Check(c)
	var ae *alone.Error
	if errors.As(err, &ae) {
		fmt.Println(ae.Path, "in", ae.Root)
	}
	c.Writable[0] = "/home/u/proj"
	fmt.Println(alone.Check(c))
	// Output:
	// /home/u/.ssh in /home/u
	// <nil>
}
