package clitest

import (
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// newNetNS creates a network namespace whose loopback is up and returns a
// handle on it. The namespace lives as long as the handle or any socket
// made in it.
func newNetNS() (*os.File, error) {
	var (
		f   *os.File
		err error
	)
	onSpareThread(func() {
		if err = unix.Unshare(unix.CLONE_NEWNET); err != nil {
			err = fmt.Errorf("unshare(CLONE_NEWNET): %w", err)
			return
		}
		if err = loopbackUp(); err != nil {
			err = fmt.Errorf("bring lo up in the new namespace: %w", err)
			return
		}
		f, err = os.Open(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()))
	})
	return f, err
}

// onSpareThread runs f on an OS thread that it then throws away, so that f
// may change the thread's namespace without the change reaching any other
// goroutine: the goroutine stays locked, and a goroutine that exits while
// locked takes its thread with it.
//
// The main thread is the exception: the runtime cannot end it and instead
// parks it for good, still in whatever namespace f left it, and /proc/self
// (the process's view for every tool that reads it) would then describe the
// sandbox. So when the goroutine lands on the main thread it keeps that
// thread locked, and thereby out of reach, while it tries again on another.
func onSpareThread(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			onSpareThread(f)
			runtime.UnlockOSThread() // unchanged, so safe to reuse
			return
		}
		f()
	}()
	<-done
}

// loopbackUp sets IFF_UP on lo in the calling thread's namespace; a new
// namespace starts with lo down, where even 127.0.0.1 is unreachable.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// inNetNS runs f on a fresh thread that has entered ns. Sockets f creates
// stay in ns for their whole life, whichever thread uses them later.
func inNetNS(ns *os.File, f func() error) error {
	var err error
	onSpareThread(func() {
		if err = unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			err = fmt.Errorf("clitest: enter the sandbox's network namespace: %w", err)
			return
		}
		err = f()
	})
	return err
}

// nsPath names the namespace for nsenter, which runs as our child and can
// open our descriptor through /proc.
func (s *Sandbox) nsPath() string {
	return fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), s.ns.Fd())
}
