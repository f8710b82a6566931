package ask

import (
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wordWrapper writes a stream of text, as a model writes it, in lines of
// at most width columns broken at spaces: a terminal left to itself
// breaks a streamed answer in the middle of words. The word being written
// is held until it ends, so that it can go whole onto the next line; a
// word wider than a line is broken where the line ends.
type wordWrapper struct {
	w     io.Writer
	width int
	col   int // columns taken on the current line
	word  strings.Builder
	wcols int // the held word's columns
}

func (ww *wordWrapper) WriteString(s string) {
	var out strings.Builder
	for _, r := range s {
		switch r {
		case '\n':
			ww.place(&out)
			out.WriteByte('\n')
			ww.col = 0
		case ' ', '\t':
			ww.place(&out)
			if ww.col+1 > ww.width {
				out.WriteByte('\n')
				ww.col = 0
				continue
			}
			out.WriteByte(' ')
			ww.col++
		default:
			ww.word.WriteRune(r)
			ww.wcols += ansi.StringWidth(string(r))
			if ww.wcols >= ww.width {
				ww.place(&out)
			}
		}
	}
	io.WriteString(ww.w, out.String())
}

// place writes the held word, on a new line when it does not fit.
func (ww *wordWrapper) place(out *strings.Builder) {
	if ww.wcols == 0 {
		return
	}
	if ww.col > 0 && ww.col+ww.wcols > ww.width {
		out.WriteByte('\n')
		ww.col = 0
	}
	out.WriteString(ww.word.String())
	ww.col += ww.wcols
	ww.word.Reset()
	ww.wcols = 0
}

// Flush writes the word still held.
func (ww *wordWrapper) Flush() {
	var out strings.Builder
	ww.place(&out)
	io.WriteString(ww.w, out.String())
}
