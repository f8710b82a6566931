// Package vtscreen is test support: a minimal VT100 screen that replays
// what a program wrote to a terminal, so a test can read the final screen
// as a person would see it. A Screen is not safe for concurrent use.
package vtscreen

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Screen is a minimal terminal: enough of VT100 to replay what the command's live
// progress view and its result write, and a full-screen UI's frames. It knows
// text, CR, LF (as CR LF, like a tty with onlcr), backspace, cursor up (CSI n
// A), cursor position (CSI row;col H), erase in line (CSI K, CSI 2K) and
// erase below or all (CSI J, CSI 2J); other escape sequences (colours,
// modes) are ignored. Lines do not wrap. An escape sequence or a character
// cut in two by the end of a Write is completed by the next.
type Screen struct {
	lines    [][]rune
	row, col int
	pending  []byte // the start of a sequence or character the last Write ended in
}

func (s *Screen) Write(b []byte) (int, error) {
	buf := append(s.pending, b...)
	s.pending = nil
	for i := 0; i < len(buf); {
		switch c := buf[i]; c {
		case '\r':
			s.col = 0
			i++
		case '\n':
			s.row++
			s.col = 0
			i++
		case '\b':
			s.col = max(s.col-1, 0)
			i++
		case '\x1b':
			if i+1 >= len(buf) {
				s.pending = append([]byte{}, buf[i:]...)
				return len(b), nil
			}
			if buf[i+1] != '[' {
				i++
				continue
			}
			j := i + 2
			for j < len(buf) && (buf[j] < '@' || buf[j] > '~') {
				j++
			}
			if j == len(buf) {
				s.pending = append([]byte{}, buf[i:]...)
				return len(b), nil
			}
			s.csi(string(buf[i+2:j]), rune(buf[j]))
			i = j + 1
		default:
			if !utf8.FullRune(buf[i:]) {
				s.pending = append([]byte{}, buf[i:]...)
				return len(b), nil
			}
			r, size := utf8.DecodeRune(buf[i:])
			s.put(r)
			i += size
		}
	}
	return len(b), nil
}

func (s *Screen) csi(param string, final rune) {
	n, err := strconv.Atoi(param)
	if err != nil {
		n = 0
	}
	s.grow()
	switch final {
	case 'A':
		s.row = max(s.row-max(n, 1), 0)
	case 'K':
		if n == 2 {
			s.lines[s.row] = nil
		} else if s.col < len(s.lines[s.row]) {
			s.lines[s.row] = s.lines[s.row][:s.col]
		}
	case 'H':
		row, col, _ := strings.Cut(param, ";")
		s.row, s.col = position(row), position(col)
	case 'J':
		if n == 2 {
			s.lines = nil
			return
		}
		if s.col < len(s.lines[s.row]) {
			s.lines[s.row] = s.lines[s.row][:s.col]
		}
		s.lines = s.lines[:s.row+1]
	}
}

// position is a 0-based row or column from CSI H's 1-based parameter
// (missing or 0: the first).
func position(p string) int {
	n, _ := strconv.Atoi(p)
	return max(n-1, 0)
}

func (s *Screen) grow() {
	for len(s.lines) <= s.row {
		s.lines = append(s.lines, nil)
	}
}

func (s *Screen) put(r rune) {
	s.grow()
	l := s.lines[s.row]
	for len(l) <= s.col {
		l = append(l, ' ')
	}
	l[s.col] = r
	s.lines[s.row] = l
	s.col++
}

// Text is what the screen shows, trailing blanks and empty lines removed.
func (s *Screen) Text() []string {
	var out []string
	for _, l := range s.lines {
		out = append(out, strings.TrimRight(string(l), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
