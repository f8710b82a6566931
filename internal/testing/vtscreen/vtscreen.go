// Package vtscreen is test support: a minimal VT100 screen that replays
// what a program wrote to a terminal, so a test can read the final screen
// as a person would see it. A Screen is not safe for concurrent use.
package vtscreen

import (
	"strconv"
	"strings"
)

// Screen is a minimal terminal: enough of VT100 to replay what the command's live
// progress view and its result write. It knows text, CR, LF (as CR LF, like a tty
// with onlcr), cursor up (CSI n A), erase in line (CSI K, CSI 2K) and
// erase below (CSI J); other escape sequences (colours) are ignored. Lines
// do not wrap.
type Screen struct {
	lines    [][]rune
	row, col int
}

func (s *Screen) Write(b []byte) (int, error) {
	rs := []rune(string(b))
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '\r':
			s.col = 0
		case '\n':
			s.row++
			s.col = 0
		case '\x1b':
			if i+1 >= len(rs) || rs[i+1] != '[' {
				continue
			}
			j := i + 2
			for j < len(rs) && (rs[j] < '@' || rs[j] > '~') {
				j++
			}
			if j == len(rs) {
				return len(b), nil
			}
			param := string(rs[i+2 : j])
			s.csi(param, rs[j])
			i = j
		default:
			s.put(r)
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
	case 'J':
		if s.col < len(s.lines[s.row]) {
			s.lines[s.row] = s.lines[s.row][:s.col]
		}
		s.lines = s.lines[:s.row+1]
	}
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
