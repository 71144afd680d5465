package denymsg

import (
	"bytes"
)

// Kind is the kind of denial a finding reports; there is at most one hint
// line per kind.
type Kind uint8

const (
	KindWrite     Kind = iota + 1 // a write refused outside the writable roots
	KindProtected                 // a write refused on a protected path
	KindHidden                    // a read or write of a hidden path
	KindNetwork                   // a connection or name lookup refused under --network deny
	KindSeccomp                   // a process killed by the system-call filter (SIGSYS)
	KindUnix                      // a unix socket refused (no --allow-unix-sockets)
)

var kindNames = [...]string{"", "write", "protected", "hidden", "network", "seccomp", "unix"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k != 0 {
		return kindNames[k]
	}
	return "kind(?)"
}

// Finding is one denial recognised in the output.
type Finding struct {
	Kind Kind
	// Path is the absolute, clean path the message names, or "" when it names
	// none (or names one that cannot be placed). Always "" for network and
	// seccomp findings.
	Path string
	// Entry is the Facts entry Path lies under, for hidden and protected
	// findings. Hints print Entry, never Path, for these kinds.
	Entry string
}

// class is what a signature says happened, in errno terms.
type class uint8

const (
	classSeccomp class = iota + 1
	classNetwork
	classROFS   // EROFS: a write on a read-only mount
	classAccess // EACCES
	classPerm   // EPERM
	classBusy   // EBUSY: rename or unlink of a mount point (a protected file)
	classNoEnt  // ENOENT: only a denial on a hidden path
)

// signature is a substring that marks a denial. Texts drop a leading letter
// whose case differs between tools ("Permission denied", Go's "permission
// denied") and are at least 14 bytes long: the prefilter's stride is the
// length of the shortest one.
type signature struct {
	text  string
	class class
}

// leads are words of a message before its signature text ("Device or
// resource busy"); they are not part of the path before it.
var leads = map[class][]byte{classBusy: []byte("Device ")}

// signatures in priority order: when a line carries several, the first wins.
var signatures = []signature{
	{"Bad system call", classSeccomp},       // sh, bash: a child died of SIGSYS
	{"etwork is unreachable", classNetwork}, // ENETUNREACH: no route out of the sandbox
	{"onnection refused", classNetwork},     // ECONNREFUSED: loopback services of the host are out of reach
	{"onnect to server", classNetwork},      // curl, git (libcurl): Couldn't connect to server
	{"connect ECONNREFUSED", classNetwork},  // node
	{"connect ENETUNREACH", classNetwork},   // node
	{"connect EPERM ", classNetwork},        // node, socket() refused by the filter
	{"connect EACCES ", classNetwork},       // node
	{"ould not resolve", classNetwork},      // curl, git, ssh, cargo: Could not resolve host(name)
	{"ouldn't resolve", classNetwork},       // libcurl: Couldn't resolve host name
	{"nable to resolve", classNetwork},      // wget: unable to resolve host address
	{"name resolution", classNetwork},       // glibc EAI_AGAIN: Temporary failure in name resolution
	{"service not known", classNetwork},     // glibc EAI_NONAME: Name or service not known
	{"servname provided", classNetwork},     // macOS: nodename nor servname provided, or not known
	{"getaddrinfo EAI_AGAIN", classNetwork}, // node
	{"getaddrinfo ENOTFOUND", classNetwork}, // node
	{": no such host", classNetwork},        // Go resolver
	{"UnknownHostException", classNetwork},  // Java
	{": bad address '", classNetwork},       // busybox wget, nc
	{"ead-only file system", classROFS},
	{"ermission denied", classAccess},
	{"peration not permitted", classPerm},
	{"or resource busy", classBusy},
	{"o such file or directory", classNoEnt},
}

// netWords mark a permission error as a refused socket rather than a path.
// "connect: " and "dial unix" are how Go reports a connect(2) that
// Landlock refused (ABI 9 pathname sockets: EACCES; abstract scoping:
// EPERM).
var netWords = [][]byte{
	[]byte("socket: "), []byte("socket("), []byte("dial tcp"), []byte("dial udp"), []byte("dial unix"), []byte("connect: "),
	[]byte("connect to "), []byte("connecting to "), []byte("onnection to "),
}

// Classify reports the denial one line of output shows, if any. line is one
// line without its terminator; only its first MaxLine bytes are looked at.
func Classify(line []byte, f Facts) (Finding, bool) {
	line = trimLine(line)
	sig, i, ok := firstSignature(line)
	if !ok {
		return Finding{}, false
	}
	switch sig.class {
	case classSeccomp:
		return Finding{Kind: KindSeccomp}, true
	case classNetwork:
		return network(line, bytes.Contains([]byte(sig.text), []byte(" E")), f)
	}
	j := i + len(sig.text)
	i = wordStart(line, i)
	if lead := leads[sig.class]; bytes.HasSuffix(line[:i], lead) {
		i -= len(lead)
	}
	if sig.class == classAccess && sshAuth(line[j:]) {
		return Finding{}, false
	}
	if (sig.class == classAccess || sig.class == classPerm) && netContext(line, j) {
		return network(line, true, f)
	}
	raw, _ := pathNear(line, i, j)
	return place(sig.class, raw, isRead(line), f)
}

func trimLine(line []byte) []byte {
	if len(line) > MaxLine {
		line = line[:MaxLine]
	}
	return bytes.TrimRight(line, " \t\r")
}

func firstSignature(line []byte) (signature, int, bool) {
	for _, s := range signatures {
		if i := bytes.Index(line, []byte(s.text)); i >= 0 {
			return s, i, true
		}
	}
	return signature{}, 0, false
}

// wordStart backs i up over the letters a signature text leaves out.
func wordStart(line []byte, i int) int {
	for i > 0 && isLetter(line[i-1]) {
		i--
	}
	return i
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// network places a refused connection: a unix socket when the line names
// one, or when it is a permission error (perm) on a socket while only unix
// sockets are refused (under --network allow the filter refuses nothing
// else); else the network.
func network(line []byte, perm bool, f Facts) (Finding, bool) {
	switch {
	case f.UnixDeny && (unixContext(line) || perm && !f.NetworkDeny):
		return Finding{Kind: KindUnix}, true
	case f.NetworkDeny:
		return Finding{Kind: KindNetwork}, true
	}
	return Finding{}, false
}

// unixWords mark a refused connection as one to a unix socket: the word,
// a socket file, a path after a connect, or a daemon reached by one.
var unixWords = [][]byte{
	[]byte("unix"), []byte("Unix"), []byte("UNIX"), []byte(".sock"), []byte("socket at "),
	[]byte("connecting to /"), []byte("connect to /"), []byte("EPERM /"), []byte("EACCES /"),
	[]byte(`socket "/`), []byte(" to agent"), []byte(" to bus"), []byte("D-Bus"), []byte("dbus"), []byte("tmux"),
	[]byte("ocker daemon"),
}

func unixContext(line []byte) bool {
	for _, w := range unixWords {
		if bytes.Contains(line, w) {
			return true
		}
	}
	return false
}

// sshAuth reports an ssh authentication failure ("Permission denied
// (publickey).", "Permission denied, please try again."): the server said no,
// not the sandbox.
func sshAuth(after []byte) bool {
	if bytes.HasPrefix(after, []byte(", please try again")) {
		return true
	}
	if !bytes.HasPrefix(after, []byte(" (")) {
		return false
	}
	for _, m := range []string{"publickey", "password", "keyboard-interactive", "hostbased", "gssapi"} {
		if bytes.Contains(after, []byte(m)) {
			return true
		}
	}
	return false
}

// netContext reports a permission error about a socket. Python names the file
// in every OSError about a path, so a bare "[Errno 1] Operation not permitted"
// at the end of a line comes from a socket call (or a process call, which the
// network hint then wrongly blames; a socket is by far the common case under
// --network deny).
func netContext(line []byte, j int) bool {
	for _, w := range netWords {
		if bytes.Contains(line, w) {
			return true
		}
	}
	return j == len(line) && bytes.HasSuffix(line, []byte("[Errno 1] Operation not permitted"))
}

// readers are tools that only read: their permission errors outside the
// writable roots (find over /proc, grep -r /etc, macOS privacy folders) are
// not refused writes.
var readers = map[string]bool{
	"find": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true,
	"cat": true, "ls": true, "du": true, "head": true, "tail": true, "wc": true, "less": true,
	"more": true, "diff": true, "cmp": true, "stat": true, "file": true, "tree": true,
	"readlink": true, "realpath": true, "od": true, "xxd": true, "md5sum": true, "sha256sum": true,
}

var readPhrases = [][]byte{
	[]byte("cannot open directory"), []byte("cannot access"), []byte("annot read"),
	[]byte("for reading"), []byte("cannot stat"),
}

// isRead reports a line that tells of a read: from a reading tool ("find:",
// "/usr/bin/grep:") or in so many words.
func isRead(line []byte) bool {
	if prog, _, ok := bytes.Cut(line, []byte(": ")); ok {
		if k := bytes.LastIndexByte(prog, '/'); k >= 0 {
			prog = prog[k+1:]
		}
		if readers[string(prog)] {
			return true
		}
	}
	for _, p := range readPhrases {
		if bytes.Contains(line, p) {
			return true
		}
	}
	return false
}

// place decides what a path denial means given where the path lies. read
// marks a message about a read: a permission error on a read outside the
// writable roots is the file's own mode, not the sandbox (which refuses
// writes there with EROFS on Linux, EPERM on macOS).
func place(c class, raw string, read bool, f Facts) (Finding, bool) {
	read = read && (c == classAccess || c == classPerm)
	p, rel := resolve(raw, f.Cwd)
	if p == "" {
		// No path to place: a read-only or permission error still points at the
		// writable roots. EPERM without a path is usually not about a file.
		if c == classROFS || c == classAccess && !read {
			return Finding{Kind: KindWrite}, true
		}
		return Finding{}, false
	}
	if e, ok := within(p, f.Hidden); ok {
		return Finding{Kind: KindHidden, Path: p, Entry: e}, true
	}
	if c == classNoEnt {
		return Finding{}, false
	}
	if e, ok := within(p, f.Protected); ok {
		return Finding{Kind: KindProtected, Path: p, Entry: e}, true
	}
	if _, ok := within(p, f.Writable); ok {
		if c == classROFS && rel {
			// A read-only error cannot happen in a writable root: the command
			// changed directory, so the path is not where Cwd puts it.
			return Finding{Kind: KindWrite}, true
		}
		return Finding{}, false // a genuine permission problem, not the sandbox
	}
	if c == classBusy || read {
		return Finding{}, false
	}
	return Finding{Kind: KindWrite, Path: p}, true
}
