package profiles

import _ "embed"

// seccompJSON is zsandbox's default seccomp profile, an OCI runtime-spec
// LinuxSeccomp document. JSON has no comments, so the rules are explained here,
// in file order. Every rule returns EPERM (errnoRet 1) unless noted; the
// default action is SCMP_ACT_ALLOW, so this is a deny list of attack surface a
// sandboxed command never needs.
//
//   - ioctl TIOCSTI (0x5412) and TIOCLINUX (0x541c): push keystrokes into, or
//     paste the selection of, the caller's terminal. The request is compared on
//     its low 32 bits only (MASKED_EQ, mask 0xffffffff) because the kernel
//     truncates it to unsigned int: 0x100005412 is still TIOCSTI
//     (CVE-2019-10063).
//   - io_uring_setup/enter/register: io_uring performs syscalls from kernel
//     context, out of the filter's sight.
//   - bpf, perf_event_open: large kernel attack surface, and a view of other
//     processes.
//   - keyctl, add_key, request_key: the kernel keyrings are not namespaced;
//     joining or reading them reaches the caller's credentials.
//   - kexec_load, kexec_file_load, init_module, finit_module, delete_module.
//   - userfaultfd (stalls the kernel at will, a race-exploit primitive) and
//     open_by_handle_at (opens files by handle, around the mount tree).
//   - mount, umount2, pivot_root and the new mount API (move_mount, open_tree,
//     fsopen, fsconfig, fsmount, fspick, mount_setattr): the sandbox's mount
//     tree is the sandbox.
//   - setns, and clone/unshare with any namespace flag: no new or other
//     namespaces. A seccomp rule cannot test "flags & mask != 0" directly, so
//     there is one MASKED_EQ rule per flag (mask = value = the flag):
//     CLONE_NEWNS 0x20000, CLONE_NEWCGROUP 0x2000000, CLONE_NEWUTS 0x4000000,
//     CLONE_NEWIPC 0x8000000, CLONE_NEWUSER 0x10000000, CLONE_NEWPID 0x20000000,
//     CLONE_NEWNET 0x40000000, CLONE_NEWTIME 0x80. (clone carries its exit
//     signal in the low byte, where 0x80 means a signal number above 127,
//     which does not exist, so for clone that rule refuses only nonsense.)
//   - clone3 returns ENOSYS (errnoRet 38): its flags live in memory, where
//     seccomp cannot look, and ENOSYS makes glibc fall back to clone, whose
//     flags the rules above inspect.
//   - personality other than PER_LINUX (0) and the query 0xffffffff: the kernel
//     truncates the argument to 32 bits, and libseccomp allows one comparison
//     per argument per rule, so "x is neither all zeros nor all ones" is
//     written as 32 rules, rule i matching "bit i set and bit i+1 (mod 32)
//     clear": every other 32-bit value has such a 1-then-0 pair somewhere
//     around the ring, and neither 0 nor 0xffffffff has one. Each rule fixes
//     two bits, and covering every non-constant value with two-bit rules takes
//     a strongly connected graph on the 32 bits, so 32 is the minimum.
//   - socket(AF_VSOCK=40): a route to the hypervisor and other VMs that no
//     network namespace cuts.
//
// Architectures name the native ABIs the profile was written for (amd64 and
// arm64). The compiled filter covers only the machine's native ABI; syscalls
// made through any other ABI (i386 and x32 on amd64, arm on arm64) kill the
// process, so their differently numbered syscalls and i386's socketcall cannot
// slip past the rules. Network deny and unix sockets off add their socket
// rules in code (seccomp.WithSockets).
//
//go:embed seccomp.json
var seccompJSON []byte

// Seccomp returns a copy of the default seccomp profile, OCI LinuxSeccomp JSON.
func Seccomp() []byte { return append([]byte(nil), seccompJSON...) }
