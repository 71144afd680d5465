package netproxy

import (
	"bufio"
	"net"
)

// Copy buffer sizes of one tunnel direction. A direction starts small and
// doubles its buffer each time a read fills it, so an idle or interactive
// connection holds 32 KiB and a bulk download soon moves up to 1 MiB per
// read and write.
//
// Why not io.Copy: between two *net.TCPConn it splices(2), and measured on
// loopback (docs/benchmarks.md, "The proxy's tunnel") splicing cost the
// proxy about half again as much CPU per byte as reading and writing 1 MiB
// at a time: it moves whatever one segment brought, two system calls each,
// and the spliced pages make the client's receive queue look fuller than it
// is, so the kernel collapses (copies) it.
const (
	minCopyBuf = 32 << 10
	maxCopyBuf = 1 << 20
)

// tunnel copies bytes both ways until both sides are done, passing each
// side's end of data on as a half close. The bytes the handshake reader
// already buffered (a client may send them right behind its request) go
// first.
func tunnel(client net.Conn, br *bufio.Reader, server net.Conn) {
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		if _, err := server.Write(b); err != nil {
			return
		}
	}
	done := make(chan struct{})
	go func() {
		pipe(server, client)
		close(done)
	}()
	pipe(client, server)
	<-done
}

// pipe copies src to dst until src ends or either fails, then closes dst
// for writing.
func pipe(dst, src net.Conn) {
	defer closeWrite(dst)
	buf := make([]byte, minCopyBuf)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
		if n == len(buf) && len(buf) < maxCopyBuf {
			buf = make([]byte, 2*len(buf))
		}
	}
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}
