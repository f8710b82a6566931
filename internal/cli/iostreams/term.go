package iostreams

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// TerminalWidth reports whether w is a terminal and, if so, its width.
func TerminalWidth(w io.Writer) (bool, int) {
	f, ok := w.(*os.File)
	if !ok {
		return false, 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return false, 0
	}
	width := int(ws.Col)
	if width <= 0 {
		width = 80
	}
	return true, width
}

// IsTerminal reports whether r is a terminal, for reading answers from a
// person.
func IsTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
