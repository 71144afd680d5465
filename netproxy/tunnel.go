package netproxy

import (
	"bufio"
	"io"
	"net"
)

// Copy buffer sizes of one tunnel direction. A direction starts small and
// doubles its buffer each time a read fills it, so an idle or interactive
// connection holds 32 KiB and a bulk download soon moves up to 1 MiB per
// read and write (memory: at most 2 MiB per tunnel, MaxConns tunnels).
//
// Why not io.Copy: between two *net.TCPConn it splices(2) (the handshake's
// bufio.Reader does not stop that: the tunnel copies between the raw
// connections), and measured on loopback (docs/benchmarks.md, "The proxy's
// tunnel") splicing cost more CPU per byte than reading and writing up to
// 1 MiB at a time: each splice moved what one or two segments brought
// (32-64 KiB), two system calls and a wake-up for each.
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
	copyBulk(dst, src)
	closeWrite(dst)
}

// copyBulk is io.Copy with the tunnel's growing buffer; it stops at src's
// end (nil error) or the first error.
func copyBulk(dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, minCopyBuf)
	var written int64
	for {
		n, err := src.Read(buf)
		if n > 0 {
			m, werr := dst.Write(buf[:n])
			written += int64(m)
			if werr != nil {
				return written, werr
			}
		}
		if err == io.EOF {
			return written, nil
		}
		if err != nil {
			return written, err
		}
		if n == len(buf) && len(buf) < maxCopyBuf {
			buf = make([]byte, 2*len(buf))
		}
	}
}

// bulkWriter is a connection whose ReadFrom is copyBulk, for the bodies
// net/http copies to it with io.Copy.
type bulkWriter struct{ net.Conn }

func (w bulkWriter) ReadFrom(r io.Reader) (int64, error) { return copyBulk(w.Conn, r) }

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}
