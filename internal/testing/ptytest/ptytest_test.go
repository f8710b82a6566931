//go:build linux

package ptytest

import (
	"io"
	"testing"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The slave side is a terminal of the size asked, and what is written to
// it comes out of the master side.
func TestOpen(t *testing.T) {
	master, slave, err := Open(100, 30)
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	ws, err := unix.IoctlGetWinsize(int(slave.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col != 100 || ws.Row != 30 {
		t.Fatalf("the slave's window is %+v (%v), want 100×30", ws, err)
	}
	if _, err := io.WriteString(slave, "hi"); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	buf := make([]byte, 2)
	if _, err := io.ReadFull(master, buf); err != nil || string(buf) != "hi" {
		t.Fatalf("read %q from the master (%v), want hi", buf, err)
	}
}
