package landlock_test

import (
	"errors"
	"fmt"

	"github.com/zsandbox/zsandbox/landlock"
)

// Run from the home directory, the Landlock-only backend cannot keep ~/.ssh
// hidden: Landlock rules only add access, and the rule on the writable
// root would grant it. Nothing runs.
func ExampleCheckAlone() {
	c := landlock.AloneConfig{Writable: []string{"/home/u", "/tmp"}, Hidden: []string{"/home/u/.ssh"}, NetworkDeny: true}
	err := landlock.CheckAlone(c)
	var ae *landlock.AloneError
	if errors.As(err, &ae) {
		fmt.Println(ae.Path, "in", ae.Root)
	}
	c.Writable[0] = "/home/u/proj"
	fmt.Println(landlock.CheckAlone(c))
	// Output:
	// /home/u/.ssh in /home/u
	// <nil>
}
