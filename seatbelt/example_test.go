package seatbelt_test

import (
	"fmt"
	"strings"

	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seatbelt"
)

// Render returns SBPL text that names no path, plus the -D parameters that
// carry them; /tmp becomes /private/tmp, the path the macOS kernel reports.
func ExampleRender() {
	p := &policy.Policy{
		Cwd:      "/Users/me/app",
		Home:     "/Users/me",
		Writable: []policy.Root{{Path: "/Users/me/app"}, {Path: "/tmp"}},
		Hidden:   []policy.Hidden{{Path: "/Users/me/.ssh"}},
		Network:  policy.NetworkDeny,
	}
	prof, err := seatbelt.Render(p, []string{"/Users/me/app/.git/hooks"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, prm := range prof.Params {
		fmt.Printf("-D %s=%s\n", prm.Name, prm.Value)
	}
	fmt.Println("paths in the text:", strings.Contains(prof.Text, "/Users/me"))
	// Output:
	// -D WRITABLE_ROOT_0=/Users/me/app
	// -D WRITABLE_ROOT_1=/private/tmp
	// -D PROTECTED_0=/Users/me/app/.git/hooks
	// -D ANCESTOR_0=/Users/me/app/.git
	// -D ANCESTOR_1=/Users/me/app
	// -D HIDDEN_0=/Users/me/.ssh
	// paths in the text: false
}
