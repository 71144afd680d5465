package seccomp_test

import (
	"fmt"

	"github.com/zsandbox/zsandbox/seccomp"
)

func ExampleParse() {
	profile := []byte(`{
		"defaultAction": "SCMP_ACT_ALLOW",
		"syscalls": [{"names": ["bpf"], "action": "SCMP_ACT_FOO"}]
	}`)
	_, err := seccomp.Parse(profile, "strict.json")
	fmt.Println(err)
	// Output: seccomp profile "strict.json": syscalls[0].action: unknown action "SCMP_ACT_FOO"
}
