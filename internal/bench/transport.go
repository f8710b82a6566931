package bench

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/quorum-go/quorum/internal/wire"
)

// Transport names how a benchmark's two ends are connected.
type Transport string

const (
	// Pipe is a pair of OS pipes, as the CLI's stdio is.
	Pipe Transport = "pipe"
	// TCP is a loopback TCP connection, as the CLI's --port is.
	TCP Transport = "tcp"
)

// Connect returns the two ends of a fresh connection of kind t: client is
// the end a client reads the server's frames from.
func Connect(t Transport) (client, server io.ReadWriteCloser, err error) {
	switch t {
	case Pipe:
		down, up, err := pipes()
		if err != nil {
			return nil, nil, err
		}
		return wire.Duplex{R: down[0], W: up[1]}, wire.Duplex{R: up[0], W: down[1]}, nil
	case TCP:
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, err
		}
		defer ln.Close()
		accepted := make(chan net.Conn, 1)
		go func() {
			c, _ := ln.Accept()
			accepted <- c
		}()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			ln.Close()
			<-accepted
			return nil, nil, err
		}
		s := <-accepted
		if s == nil {
			c.Close()
			return nil, nil, errors.New("bench: accepting a loopback connection failed")
		}
		return c, s, nil
	}
	return nil, nil, fmt.Errorf("bench: unknown transport %q", t)
}

// pipes returns two OS pipes, each as [read end, write end].
func pipes() (down, up [2]*os.File, err error) {
	r1, w1, err := os.Pipe()
	if err != nil {
		return down, up, err
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		r1.Close()
		w1.Close()
		return down, up, err
	}
	return [2]*os.File{r1, w1}, [2]*os.File{r2, w2}, nil
}
