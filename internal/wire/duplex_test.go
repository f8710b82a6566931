package wire

import (
	"errors"
	"io"
	"testing"
)

type closeRecorder struct {
	name  string
	order *[]string
	err   error
}

func (c closeRecorder) Read([]byte) (int, error)    { return 0, io.EOF }
func (c closeRecorder) Write(p []byte) (int, error) { return len(p), nil }
func (c closeRecorder) Close() error                { *c.order = append(*c.order, c.name); return c.err }

// Close closes the write end before the read end and reports both errors.
func TestDuplexClose(t *testing.T) {
	var order []string
	rerr, werr := errors.New("read end"), errors.New("write end")
	d := Duplex{R: closeRecorder{"r", &order, rerr}, W: closeRecorder{"w", &order, werr}}
	err := d.Close()
	if len(order) != 2 || order[0] != "w" || order[1] != "r" {
		t.Fatalf("closed in order %v, want [w r]", order)
	}
	if !errors.Is(err, rerr) || !errors.Is(err, werr) {
		t.Fatalf("Close = %v, want both ends' errors", err)
	}
}

// Reads and writes go to their own ends.
func TestDuplexReadWrite(t *testing.T) {
	r1, w1 := io.Pipe()
	r2, w2 := io.Pipe()
	d := Duplex{R: r1, W: w2}
	go func() { w1.Write([]byte("in")); w1.Close() }()
	got, err := io.ReadAll(io.LimitReader(d, 2))
	if err != nil || string(got) != "in" {
		t.Fatalf("read %q, %v", got, err)
	}
	go func() { d.Write([]byte("out")); w2.Close() }()
	out, _ := io.ReadAll(r2)
	if string(out) != "out" {
		t.Fatalf("wrote %q", out)
	}
	d.Close()
}
