// Package seccomp turns a seccomp profile into the BPF program bwrap installs
// with --seccomp FD.
//
// The profile is data: an OCI runtime-spec LinuxSeccomp document. [Default]
// is zsandbox's embedded profile (see package profiles), [Parse] reads a
// user's, strictly, and [WithSockets] adds the socket rules of
// --network deny and of unix sockets off. [Allows] tells whether a profile
// lets a system call run. These are pure and build everywhere.
//
// [Compile] (Linux with cgo, via libseccomp) checks the profile again and
// exports the filter as BPF for the native ABI only: a syscall made through
// any other ABI (i386 or x32 on amd64, arm on arm64) kills the process, so
// compat syscall numbers and i386's socketcall cannot route around the rules.
// [SealedFD] puts the program in a sealed memfd for bwrap to read. On other
// platforms both return an error.
//
// Problems with a profile's content are reported as *[ProfileError], which
// names the profile and the JSON field, so the CLI can treat them as usage
// errors.
package seccomp
