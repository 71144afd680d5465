package landlock

import "strconv"

// abiVersion is what one Landlock ABI brings, in go-landlock's shape: the
// rights and scopes the kernel handles from that version on, and the first
// mainline Linux release with it. The one table: the rules (fsAt, netAt,
// scopeAt), the hints (KernelFor) and the doctor read it.
type abiVersion struct {
	version int
	kernel  string // "" when no released kernel is known here
	fs      AccessFS
	net     AccessNet
	scope   Scope
}

// abiVersions lists every ABI zsandbox knows, oldest first; each adds to
// the ones before it.
var abiVersions = []abiVersion{
	{version: 1, kernel: "5.13", fs: fsMakeSym<<1 - 1}, // execute .. make_sym
	{version: 2, kernel: "5.19", fs: fsRefer},
	{version: 3, kernel: "6.2", fs: fsTruncate},
	{version: 4, kernel: "6.7", net: netBindTCP | netConnectTCP},
	{version: 5, kernel: "6.10", fs: fsIoctlDev},
	{version: 6, kernel: "6.12", scope: scopeAbstractUnixSocket | scopeSignal},
	{version: 7, kernel: "6.15"}, // audit logging: nothing the rules use
	{version: 8},
	{version: 9, fs: fsResolveUnix},
	{version: 10, net: netBindUDP | netConnectSendUDP},
}

// upTo folds the table up to ABI abi.
func upTo(abi int) (v abiVersion) {
	for _, a := range abiVersions {
		if a.version > abi {
			break
		}
		v.fs, v.net, v.scope = v.fs|a.fs, v.net|a.net, v.scope|a.scope
	}
	return v
}

// fsAt is every filesystem right the kernel knows at ABI abi.
func fsAt(abi int) AccessFS { return upTo(abi).fs }

// netAt is every network right the kernel knows at ABI abi.
func netAt(abi int) AccessNet { return upTo(abi).net }

// scopeAt is every scope the kernel knows at ABI abi.
func scopeAt(abi int) Scope { return upTo(abi).scope }

// KernelFor is the first mainline Linux release with Landlock ABI abi, as
// hints and the doctor name it.
func KernelFor(abi int) string {
	for _, a := range abiVersions {
		if a.version == abi && a.kernel != "" {
			return a.kernel
		}
	}
	return "a release with Landlock ABI " + strconv.Itoa(abi)
}

// HandledFS is every file-system right a kernel of ABI abi handles.
func HandledFS(abi int) AccessFS { return fsAt(abi) }
