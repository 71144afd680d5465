package landlock

import (
	"encoding/json"
	"math/bits"
	"strconv"
	"strings"
)

// AccessFS is a set of Landlock filesystem access rights
// (LANDLOCK_ACCESS_FS_*, same bits).
type AccessFS uint64

// AccessNet is a set of Landlock network access rights
// (LANDLOCK_ACCESS_NET_*, same bits).
type AccessNet uint64

// Scope is a set of Landlock IPC scopes (LANDLOCK_SCOPE_*, same bits).
type Scope uint64

// The kernel's bits, in the kernel's order. They are spelled out here rather
// than taken from x/sys/unix so that the pure rules build on every OS; a
// Linux test checks them against unix.LANDLOCK_*.
const (
	fsExecute AccessFS = 1 << iota
	fsWriteFile
	fsReadFile
	fsReadDir
	fsRemoveDir
	fsRemoveFile
	fsMakeChar
	fsMakeDir
	fsMakeReg
	fsMakeSock
	fsMakeFifo
	fsMakeBlock
	fsMakeSym
	fsRefer       // ABI 2
	fsTruncate    // ABI 3
	fsIoctlDev    // ABI 5
	fsResolveUnix // ABI 9
)

// AccessResolveUnix is the right to connect to a pathname unix socket
// (ABI 9).
const (
	AccessResolveUnix = fsResolveUnix
)

const (
	netBindTCP        AccessNet = 1 << iota // ABI 4
	netConnectTCP                           // ABI 4
	netBindUDP                              // ABI 10
	netConnectSendUDP                       // ABI 10
)

const (
	scopeAbstractUnixSocket Scope = 1 << iota // ABI 6
	scopeSignal                               // ABI 6
)

// FileAccess are the rights that apply to a file itself; the kernel refuses
// a rule on a file with any other.
const FileAccess = fsExecute | fsWriteFile | fsReadFile | fsTruncate | fsIoctlDev

var (
	fsNames = []string{
		"execute", "write_file", "read_file", "read_dir", "remove_dir", "remove_file",
		"make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block",
		"make_sym", "refer", "truncate", "ioctl_dev", "resolve_unix",
	}
	netNames   = []string{"bind_tcp", "connect_tcp", "bind_udp", "connect_send_udp"}
	scopeNames = []string{"abstract_unix_socket", "signal"}
)

// Names lists the rights by their kernel names (without the prefix).
func (a AccessFS) Names() []string { return setNames(uint64(a), fsNames) }

// Names lists the rights by their kernel names (without the prefix).
func (a AccessNet) Names() []string { return setNames(uint64(a), netNames) }

// Names lists the scopes by their kernel names (without the prefix).
func (s Scope) Names() []string { return setNames(uint64(s), scopeNames) }

func (a AccessFS) String() string  { return strings.Join(a.Names(), " ") }
func (a AccessNet) String() string { return strings.Join(a.Names(), " ") }
func (s Scope) String() string     { return strings.Join(s.Names(), " ") }

// MarshalJSON writes the set as a list of names.
func (a AccessFS) MarshalJSON() ([]byte, error) { return json.Marshal(a.Names()) }

// MarshalJSON writes the set as a list of names.
func (a AccessNet) MarshalJSON() ([]byte, error) { return json.Marshal(a.Names()) }

// MarshalJSON writes the set as a list of names.
func (s Scope) MarshalJSON() ([]byte, error) { return json.Marshal(s.Names()) }

// setNames names each bit; a bit without a name is shown by number, so an
// unknown right is never silently dropped from explain.
func setNames(set uint64, names []string) []string {
	out := make([]string, 0, bits.OnesCount64(set))
	for i := 0; set != 0; i++ {
		if set&1 != 0 {
			if i < len(names) {
				out = append(out, names[i])
			} else {
				out = append(out, "bit"+strconv.Itoa(i))
			}
		}
		set >>= 1
	}
	return out
}
