// Command child runs a command with alone.Exec the way zsandbox's
// --backend landlock does: the seccomp filter compiled with libseccomp
// (so this is a cgo binary, like zsandbox), errors printed by exit.Exit as
// zsandbox prints them, and the same exit statuses. The real tests of the
// backend build and run it.
//
//	ZSANDBOX_ALONE='{"writable":[...],"hide":[...],"networkDeny":true}' child COMMAND [ARG...]
//
// ZSANDBOX_ALONE_BPF=garbage hands Exec a broken filter instead.
package main

import (
	"encoding/json"
	"os"

	"github.com/zsandbox/zsandbox/alone"
	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/seccomp"
)

func main() {
	var c alone.Config
	if err := json.Unmarshal([]byte(os.Getenv("ZSANDBOX_ALONE")), &c); err != nil {
		exit.Exit(exit.Usagef("ZSANDBOX_ALONE: %v", err))
	}
	prof := seccomp.Default()
	if c.NetworkDeny {
		prof = seccomp.WithNetworkDeny(prof)
	}
	bpf, err := seccomp.Compile(prof)
	if err != nil {
		exit.Exit(exit.NotRun("seccomp filter: " + err.Error()))
	}
	if os.Getenv("ZSANDBOX_ALONE_BPF") == "garbage" {
		bpf = bpf[:len(bpf)-3]
	}
	dir, _ := os.Getwd()
	rs, err := alone.RulesHost(c, landlock.ABI())
	if err != nil {
		exit.Exit(exit.NotRunErr(err))
	}
	exit.Exit(alone.Exec(rs, bpf, os.Args[1:], os.Environ(), dir))
}
