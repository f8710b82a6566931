package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// maxHeaderLine bounds one header line; maxHeaderLines bounds how many header
// lines a frame may have. Only Content-Length was seen on the wire.
const (
	maxHeaderLine  = 8 << 10
	maxHeaderLines = 32
)

// errFraming is wrapped by every error that leaves the byte stream in an
// unknown state: the connection cannot continue after it.
var errFraming = errors.New("sim: framing error")

// frameStream is the server's jsonrpc2.ObjectStream: Content-Length framing
// in both directions, with limits on what it reads, and a raw write path that
// shares the write mutex with framed writes so fault injection lands exactly
// between two frames.
//
// A frame whose framing is intact but whose body is not a usable JSON-RPC
// message is answered (per JSON-RPC 2.0: -32700 for unparsable JSON, -32600
// for anything else) through onBadMessage and skipped; the connection goes
// on. A framing error ends the connection, because nothing after it can be
// trusted.
type frameStream struct {
	rwc     io.ReadWriteCloser
	r       *bufio.Reader
	maxBody int64

	wmu sync.Mutex // serialises every write to rwc

	// onBadMessage is called from the read loop for a skipped frame. It must
	// not block. id is the request's id when it could be read, else nil.
	onBadMessage func(id json.RawMessage, code int64, msg string)
}

func newFrameStream(rwc io.ReadWriteCloser, maxBody int64) *frameStream {
	return &frameStream{rwc: rwc, r: bufio.NewReaderSize(rwc, 64<<10), maxBody: maxBody}
}

// WriteObject implements jsonrpc2.ObjectStream. Header and body go out in one
// Write so that a synchronous pipe sees whole frames.
func (s *frameStream) WriteObject(obj any) error {
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return s.WriteRaw(frame(body))
}

// WriteRaw writes b as is, between two frames.
func (s *frameStream) WriteRaw(b []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.rwc.Write(b)
	return err
}

// writeLocked runs fn while holding the write mutex, for writes made of many
// pieces (an oversize body written in chunks).
func (s *frameStream) writeLocked(fn func(w io.Writer) error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return fn(s.rwc)
}

// Close implements jsonrpc2.ObjectStream.
func (s *frameStream) Close() error { return s.rwc.Close() }

// ReadObject implements jsonrpc2.ObjectStream. It returns only a message that
// jsonrpc2 can decode, or an error that ends the connection.
func (s *frameStream) ReadObject(v any) error {
	for {
		body, err := s.readFrame()
		if err != nil {
			return err
		}
		code, msg, id := classify(body)
		if code == 0 {
			err := json.Unmarshal(body, v)
			if err == nil {
				return nil
			}
			// A failed decode can leave v half filled (jsonrpc2's message
			// type keeps a request it decoded before failing on the id):
			// clear it before decoding the next frame into it.
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
				rv.Elem().SetZero()
			}
			code, msg = -32600, "Invalid Request: "+err.Error()
		}
		if s.onBadMessage != nil {
			s.onBadMessage(id, code, msg)
		}
	}
}

// readFrame reads one header block and its body.
func (s *frameStream) readFrame() ([]byte, error) {
	length := int64(-1)
	for lines := 0; ; lines++ {
		if lines == maxHeaderLines {
			return nil, fmt.Errorf("%w: more than %d header lines", errFraming, maxHeaderLines)
		}
		line, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header line without a colon: %.64q", errFraming, line)
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue // Content-Type and unknown headers are ignored
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: bad Content-Length %.32q", errFraming, value)
		}
		length = n
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length header", errFraming)
	}
	if length > s.maxBody {
		return nil, fmt.Errorf("%w: Content-Length %d exceeds the limit of %d bytes", errFraming, length, s.maxBody)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// readLine reads one CRLF-terminated header line without its terminator.
func (s *frameStream) readLine() (string, error) {
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxHeaderLine {
			return "", fmt.Errorf("%w: header line longer than %d bytes", errFraming, maxHeaderLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(buf) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		break
	}
	if !bytes.HasSuffix(buf, []byte("\r\n")) {
		return "", fmt.Errorf("%w: header line not terminated by CRLF", errFraming)
	}
	return string(buf[:len(buf)-2]), nil
}

// classify decides whether body can be handed to jsonrpc2. It returns code 0
// for a plausible message, or a JSON-RPC error code and message for a body to
// skip, along with the request id when one could be read (JSON-RPC 2.0: the
// id is null when it cannot be determined).
func classify(body []byte) (code int64, msg string, id json.RawMessage) {
	if !json.Valid(body) {
		return -32700, "Parse error: the frame body is not valid JSON", nil
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if len(trimmed) > 0 && trimmed[0] == '[' {
			return -32600, "Invalid Request: batches are not supported", nil
		}
		return -32600, "Invalid Request: a message must be a JSON object", nil
	}
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return -32600, "Invalid Request: " + err.Error(), nil
	}
	if len(probe.ID) > 0 && (probe.ID[0] == '"' || probe.ID[0] == '-' || (probe.ID[0] >= '0' && probe.ID[0] <= '9')) {
		id = probe.ID
	}
	isRequest := len(probe.Method) > 0
	isResponse := len(probe.Result) > 0 || len(probe.Error) > 0
	switch {
	case isRequest && isResponse:
		return -32600, "Invalid Request: a message cannot have both method and result/error", id
	case isRequest:
		if probe.Method[0] != '"' {
			return -32600, "Invalid Request: method must be a string", id
		}
		return 0, "", nil
	case isResponse:
		return 0, "", nil
	}
	return -32600, "Invalid Request: neither a request nor a response", nil
}

// frame returns body with its Content-Length header.
func frame(body []byte) []byte {
	b := make([]byte, 0, len(body)+32)
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	return append(b, body...)
}
