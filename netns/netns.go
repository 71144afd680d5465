// Package netns starts bubblewrap in a network namespace of zsandbox's own
// making, for the allowlist: a namespace with only loopback, up, and one
// listening TCP socket on 127.0.0.1:Port whose descriptor goes back to
// zsandbox, which accepts on it from outside and proxies what it allows.
// bwrap then runs with --share-net and makes its own user namespace inside
// as usual; nothing in the namespace leads out but that listener.
//
// The namespace is made by RoleArg, a role of zsandbox's own binary that
// os/exec starts with CLONE_NEWUSER|CLONE_NEWNET: it brings lo up, makes
// the listener, sends it over an inherited socketpair (SCM_RIGHTS), closes
// both and execs bwrap in place.
package netns

// RoleArg is the first argument that makes zsandbox run the namespace role.
const RoleArg = "__netns"

// Port is the proxy's port inside the sandbox. The namespace is new and
// empty, so the port is always free, and every run's proxy has the same
// address, each in its own namespace.
const Port = 3128

// Addr is the proxy's address inside the sandbox.
const Addr = "127.0.0.1:3128"
