//go:build linux

// Package ptytest opens pseudo-terminals for tests that run a program, or
// part of one in-process, on a real terminal: the test reads what the
// program draws from the master side (internal/testing/vtscreen replays
// it) and types on it; the program gets the slave side as its terminal.
package ptytest

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Open opens a pseudo-terminal of cols×rows and returns its master and
// slave sides; the caller closes both.
func Open(cols, rows int) (master, slave *os.File, err error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open /dev/ptmx: %w", err)
	}
	master = os.NewFile(uintptr(fd), "/dev/ptmx")
	fail := func(err error) (*os.File, *os.File, error) {
		master.Close()
		return nil, nil, err
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil { // unlockpt
		return fail(fmt.Errorf("unlockpt: %w", err))
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN) // ptsname
	if err != nil {
		return fail(fmt.Errorf("ptsname: %w", err))
	}
	if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}); err != nil {
		return fail(fmt.Errorf("set the window size: %w", err))
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return fail(err)
	}
	return master, slave, nil
}
