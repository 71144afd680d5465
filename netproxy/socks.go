package netproxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"slices"
)

// SOCKS5 (RFC 1928) constants.
const (
	socksVersion         = 5
	socksNoAuth          = 0
	socksNoMethod        = 0xff
	socksConnect         = 1
	socksIPv4            = 1
	socksDomain          = 3
	socksIPv6            = 4
	socksOK              = 0
	socksFailure         = 1
	socksNotAllowed      = 2
	socksHostUnreachable = 4
	socksBadCommand      = 7
	socksBadAddress      = 8
)

// socks serves one SOCKS5 handshake without authentication, CONNECT only,
// and returns the server connection when the target is allowed.
func (p *Proxy) socks(c net.Conn, br *bufio.Reader) net.Conn {
	host, port, err := socksRequest(c, br)
	if err != nil {
		var code socksError
		if errors.As(err, &code) {
			socksReply(c, byte(code))
		}
		return nil
	}
	server, err := p.connect(context.Background(), host, port)
	if err != nil {
		var r *Refusal
		if errors.As(err, &r) {
			socksReply(c, socksNotAllowed)
		} else {
			socksReply(c, socksHostUnreachable)
		}
		return nil
	}
	if socksReply(c, socksOK) != nil {
		server.Close()
		return nil
	}
	return server
}

// socksError is a SOCKS5 reply code to send before closing.
type socksError byte

func (e socksError) Error() string { return "socks reply " + string('0'+rune(e)) }

// socksRequest reads the greeting and the request, answering the greeting.
func socksRequest(c net.Conn, br *bufio.Reader) (string, uint16, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		return "", 0, err
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return "", 0, err
	}
	if !slices.Contains(methods, socksNoAuth) {
		c.Write([]byte{socksVersion, socksNoMethod})
		return "", 0, errors.New("socks: no acceptable method")
	}
	if _, err := c.Write([]byte{socksVersion, socksNoAuth}); err != nil {
		return "", 0, err
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil {
		return "", 0, err
	}
	if req[0] != socksVersion {
		return "", 0, socksError(socksFailure)
	}
	if req[1] != socksConnect {
		return "", 0, socksError(socksBadCommand)
	}
	host, err := socksAddr(br, req[3])
	if err != nil {
		return "", 0, err
	}
	var pb [2]byte
	if _, err := io.ReadFull(br, pb[:]); err != nil {
		return "", 0, err
	}
	port := binary.BigEndian.Uint16(pb[:])
	if port == 0 {
		return "", 0, socksError(socksBadAddress)
	}
	return host, port, nil
}

// socksAddr reads the address of type atyp.
func socksAddr(br *bufio.Reader, atyp byte) (string, error) {
	switch atyp {
	case socksIPv4, socksIPv6:
		b := make([]byte, 4)
		if atyp == socksIPv6 {
			b = make([]byte, 16)
		}
		if _, err := io.ReadFull(br, b); err != nil {
			return "", err
		}
		a, _ := netip.AddrFromSlice(b)
		return a.String(), nil
	case socksDomain:
		n, err := br.ReadByte()
		if err != nil {
			return "", err
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", err
		}
		return string(b), nil
	}
	return "", socksError(socksBadAddress)
}

func socksReply(c net.Conn, code byte) error {
	_, err := c.Write([]byte{socksVersion, code, 0, socksIPv4, 0, 0, 0, 0, 0, 0})
	return err
}
