// Command alone runs a command with landlock.ExecAlone the way zsandbox's
// --backend landlock does: the seccomp filter compiled with libseccomp
// (so this is a cgo binary, like zsandbox), errors printed as zsandbox
// prints them, and the same exit statuses. The real tests of the backend
// build and run it.
//
//	ZSANDBOX_ALONE='{"writable":[...],"hide":[...],"networkDeny":true}' alone COMMAND [ARG...]
//
// ZSANDBOX_ALONE_BPF=garbage hands ExecAlone a broken filter instead.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/seccomp"
)

func main() {
	var c landlock.AloneConfig
	if err := json.Unmarshal([]byte(os.Getenv("ZSANDBOX_ALONE")), &c); err != nil {
		fail(2, "ZSANDBOX_ALONE: "+err.Error(), "")
	}
	prof := seccomp.Default()
	if c.NetworkDeny {
		prof = seccomp.WithNetworkDeny(prof)
	}
	bpf, err := seccomp.Compile(prof)
	if err != nil {
		fail(127, "seccomp filter: "+err.Error(), "")
	}
	if os.Getenv("ZSANDBOX_ALONE_BPF") == "garbage" {
		bpf = bpf[:len(bpf)-3]
	}
	dir, _ := os.Getwd()
	rs, err := landlock.AloneRulesHost(c, landlock.ABI())
	if err == nil {
		err = landlock.ExecAlone(rs, bpf, os.Args[1:], os.Environ(), dir)
	}
	var ce *landlock.CommandError
	if errors.As(err, &ce) {
		fail(ce.Code, ce.Error(), "")
	}
	var hinted interface{ Hint() string }
	hint := ""
	if errors.As(err, &hinted) {
		hint = hinted.Hint()
	}
	fail(127, fmt.Sprint(err)+"; the command did not run", hint)
}

func fail(code int, msg, hint string) {
	s := "zsandbox: error: " + msg + "\n"
	if hint != "" {
		s += "zsandbox: hint: " + hint + "\n"
	}
	os.Stderr.WriteString(s)
	os.Exit(code)
}
