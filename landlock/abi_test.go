package landlock

import "testing"

// TestABITable: each ABI adds to the one before, the bits arrive at the ABI
// the kernel documents, and hints name the kernels from the same table.
func TestABITable(t *testing.T) {
	tests := []struct {
		abi   int
		fs    AccessFS
		net   AccessNet
		scope Scope
	}{
		{0, 0, 0, 0},
		{1, fsMakeSym<<1 - 1, 0, 0},
		{2, fsRefer<<1 - 1, 0, 0},
		{3, fsTruncate<<1 - 1, 0, 0},
		{4, fsTruncate<<1 - 1, netBindTCP | netConnectTCP, 0},
		{6, fsIoctlDev<<1 - 1, netBindTCP | netConnectTCP, scopeAbstractUnixSocket | scopeSignal},
		{9, fsResolveUnix<<1 - 1, netBindTCP | netConnectTCP, scopeAbstractUnixSocket | scopeSignal},
		{10, fsResolveUnix<<1 - 1, netConnectSendUDP<<1 - 1, scopeAbstractUnixSocket | scopeSignal},
	}
	for _, tc := range tests {
		if fsAt(tc.abi) != tc.fs || netAt(tc.abi) != tc.net || scopeAt(tc.abi) != tc.scope {
			t.Errorf("ABI %d: fs %s, net %s, scope %s; want %s, %s, %s", tc.abi,
				fsAt(tc.abi), netAt(tc.abi), scopeAt(tc.abi), tc.fs, tc.net, tc.scope)
		}
	}
	for abi, want := range map[int]string{1: "5.13", 4: "6.7", 6: "6.12", 9: "a release with Landlock ABI 9"} {
		if got := KernelFor(abi); got != want {
			t.Errorf("KernelFor(%d) = %q, want %q", abi, got, want)
		}
	}
}
