//go:build !linux

package clitest

import (
	"errors"
	"os"
)

func newNetNS() (*os.File, error) {
	return nil, errors.New("network namespaces exist only on Linux")
}

func inNetNS(*os.File, func() error) error {
	panic("clitest: unreachable: no namespace outside Linux")
}

func (s *Sandbox) nsPath() string { panic("clitest: unreachable: no namespace outside Linux") }
