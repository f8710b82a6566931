package wire

import (
	"encoding/binary"
	"encoding/json"
	"unicode/utf8"
)

// Why a scanner of our own: encoding/json.Unmarshal, run three times on
// each frame (the envelope, jsonrpc2's map-based Request decoding, the
// router's look for params.sessionId), was 76% of the reader's and its
// consumers' CPU (BenchmarkEvents in internal/bench, 64 sessions; the
// profiles are in BENCHMARKS.md). One pass of this scanner validates a frame
// as strictly as encoding/json does and finds what routing needs; the
// event itself is decoded later, once, by its consumer (package session).
// The toolchain's encoding/json/jsontext would do, but it is behind
// GOEXPERIMENT=jsonv2 in go1.26.
//
// Anything the scanner does not accept takes encoding/json's path instead,
// so a frame the scanner is wrong to refuse costs time, never correctness;
// the fuzz tests hold it to never accepting what json.Valid refuses.

// maxDepth is how deeply the scanner follows nested values; a deeper frame
// is left to encoding/json (whose own limit is 10,000).
const maxDepth = 512

// scanner validates JSON text in b from i on.
type scanner struct {
	b     []byte
	i     int
	depth int
}

// strClass marks the bytes a string's fast loop must stop at: the quote,
// the backslash and control characters, which JSON forbids unescaped.
var strClass = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value skips one value after any whitespace, and reports whether it is
// valid.
func (s *scanner) value() bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '{':
		return s.object(nil, nil, nil)
	case c == '[':
		return s.array()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return false
}

// str skips the string at s.i (a '"'), reporting whether it holds an
// escape and whether it is valid.
func (s *scanner) str() (escaped, ok bool) {
	s.i++
	for {
		s.i = plainRun(s.b, s.i)
		for s.i < len(s.b) && !strClass[s.b[s.i]] {
			s.i++
		}
		if s.i >= len(s.b) {
			return escaped, false
		}
		switch s.b[s.i] {
		case '"':
			s.i++
			return escaped, true
		case '\\':
			escaped = true
			s.i++
			if s.i >= len(s.b) {
				return escaped, false
			}
			switch s.b[s.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i++
			case 'u':
				if s.i+4 >= len(s.b) {
					return escaped, false
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return escaped, false
					}
				}
				s.i += 5
			default:
				return escaped, false
			}
		default: // a control character
			return escaped, false
		}
	}
}

// plainRun returns the index of the first word of 8 bytes from i on that
// holds a byte a string's loop must stop at (see strClass), or the last
// whole word's end: eight bytes a step rather than one, which took a
// frame's scan from 490 to 420 ns (BenchmarkScan; most of a frame is
// strings). The bytewise loop after it finds the byte.
func plainRun(b []byte, i int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		quote := w ^ (ones * '"')
		backslash := w ^ (ones * '\\')
		// A byte is zero in quote or backslash, or below 0x20 in w, when its
		// high bit is set below (a borrow only ever marks bytes after a
		// marked one, which the bytewise loop never reaches).
		if ((quote-ones)&^quote|(backslash-ones)&^backslash|(w-ones*0x20)&^w)&highs != 0 {
			return i
		}
	}
	return i
}

func (s *scanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// number skips -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// member is called for each member of an object with the raw key (between
// its quotes), whether the key holds an escape, and where the value is in
// the scanned text.
type member func(key []byte, escaped bool, start, end int)

// object skips the object at s.i (a '{'), calling m, if not nil, for each
// of its members, and reports whether it is valid. nest, if not nil, is
// asked before each value whether to visit that value's members with inner
// too, when it is an object. (Neither func is kept, so closures passed in
// stay on the caller's stack.)
func (s *scanner) object(m member, nest func(key []byte, escaped bool) bool, inner member) bool {
	if !s.open() {
		return false
	}
	for more := s.i < len(s.b) && s.b[s.i] != '}'; more; {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		kstart := s.i + 1
		escaped, ok := s.str()
		if !ok {
			return false
		}
		key := s.b[kstart : s.i-1]
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		vstart := s.i
		if nest != nil && s.i < len(s.b) && s.b[s.i] == '{' && nest(key, escaped) {
			ok = s.object(inner, nil, nil)
		} else {
			ok = s.value()
		}
		if !ok {
			return false
		}
		if m != nil {
			m(key, escaped, vstart, s.i)
		}
		if more, ok = s.sep('}'); !ok {
			return false
		}
	}
	return s.close()
}

func (s *scanner) array() bool {
	if !s.open() {
		return false
	}
	for more := s.i < len(s.b) && s.b[s.i] != ']'; more; {
		var ok bool
		if !s.value() {
			return false
		}
		if more, ok = s.sep(']'); !ok {
			return false
		}
	}
	return s.close()
}

// open enters the object or array at s.i, within the depth, and moves to
// its first member (or its end).
func (s *scanner) open() bool {
	if s.depth++; s.depth > maxDepth {
		return false
	}
	s.i++
	s.ws()
	return true
}

// sep moves past the separator after a member: more when a comma, not
// when the end, which it leaves for close; ok false when neither.
func (s *scanner) sep(end byte) (more, ok bool) {
	s.ws()
	if s.i >= len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return true, true
	case end:
		return false, true
	}
	return false, false
}

// close leaves the object or array whose end is at s.i.
func (s *scanner) close() bool {
	if s.i >= len(s.b) {
		return false
	}
	s.i++
	s.depth--
	return true
}

// Members calls fn for each member of the JSON object b, in order, with
// its key as written (between the quotes) and its value as raw JSON, and
// reports whether b is one valid JSON object. fn may have been called for
// some members of an invalid b. A key that is not to be taken as written
// (it holds an escape sequence, or bytes that are not UTF-8) is passed with
// keyEscaped set: compare such a key only after decoding it, or let
// encoding/json decode the object.
func Members(b []byte, fn func(key []byte, keyEscaped bool, value []byte)) bool {
	s := scanner{b: b}
	s.ws()
	if s.i >= len(b) || b[s.i] != '{' {
		return false
	}
	if !s.object(func(key []byte, escaped bool, start, end int) {
		fn(key, escaped || !utf8.Valid(key), b[start:end])
	}, nil, nil) {
		return false
	}
	s.ws()
	return s.i == len(b)
}

// Valid reports whether b is one valid JSON value, as json.Valid does,
// except that it refuses values nested deeper than the scanner follows.
func Valid(b []byte) bool {
	s := scanner{b: b}
	if !s.value() {
		return false
	}
	s.ws()
	return s.i == len(b)
}

// String returns the JSON string value raw as a Go string. ok is false
// when raw is not a string. A string without escapes is copied as it is; one
// with escapes is decoded by encoding/json (invalid UTF-8 becomes U+FFFD
// there, as everywhere in encoding/json).
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if Plain(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Plain reports whether a JSON string's contents (between its quotes) can
// be taken as they are: no escapes, no control characters, valid UTF-8
// (encoding/json replaces invalid bytes).
func Plain(inner []byte) bool {
	ascii := true
	for _, c := range inner {
		if strClass[c] {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.Valid(inner)
}
