package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// The decode-only reader is the reference every CPU and throughput figure is
// set against: what reading the same frames costs a program that does
// nothing but read them. It frames with a bufio.Reader and decodes each body
// once, whole, with encoding/json into the protocol's types (the envelope,
// params.sessionId, the event envelope), then the data of each text delta
// into protocol.AssistantMessageDeltaData, which is the least a client must
// decode to hand a user typed events and their text. It routes nothing,
// buffers nothing, hands nothing to another goroutine.

// decodedFrame is one message, decoded whole.
type decodedFrame struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  *struct {
		SessionID string         `json:"sessionId"`
		Event     protocol.Event `json:"event"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// Decoder is the decode-only reader over one connection.
type Decoder struct {
	r    *bufio.Reader
	body []byte

	// Events counts session.event notifications read; Text counts the bytes
	// of delta text decoded, so that the decoding cannot be optimised away.
	Events, Text int
	// Idle counts session.idle events by session id.
	Idle map[string]int
	// OnDelta, if set, gets each delta's text.
	OnDelta func(text string)
}

// NewDecoder returns a decode-only reader of r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10), Idle: map[string]int{}}
}

// Next reads and decodes one frame. It returns the decoded frame's method
// ("" for a response) and, for a response, its raw id.
func (d *Decoder) Next() (method string, id json.RawMessage, err error) {
	n, err := d.header()
	if err != nil {
		return "", nil, err
	}
	if cap(d.body) < n {
		d.body = make([]byte, n)
	}
	body := d.body[:n]
	if _, err := io.ReadFull(d.r, body); err != nil {
		return "", nil, err
	}
	var f decodedFrame
	if err := json.Unmarshal(body, &f); err != nil {
		return "", nil, fmt.Errorf("bench: decoding a frame: %w", err)
	}
	if f.Method == protocol.NotificationSessionEvent && f.Params != nil {
		d.Events++
		switch f.Params.Event.Type {
		case protocol.EventAssistantMessageDelta:
			var dd protocol.AssistantMessageDeltaData
			if err := f.Params.Event.UnmarshalData(&dd); err != nil {
				return "", nil, err
			}
			d.Text += len(dd.DeltaContent)
			if d.OnDelta != nil {
				d.OnDelta(dd.DeltaContent)
			}
		case protocol.EventSessionIdle:
			d.Idle[f.Params.SessionID]++
		}
	}
	return f.Method, f.ID, nil
}

var errBadFrame = errors.New("bench: bad frame header")

// header reads a header section and returns its Content-Length.
func (d *Decoder) header() (int, error) {
	n := -1
	for {
		line, err := d.r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if n < 0 {
				return 0, errBadFrame
			}
			return n, nil
		}
		if name, value, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(name, []byte("Content-Length")) {
			v, err := strconv.Atoi(string(bytes.TrimSpace(value)))
			if err != nil {
				return 0, errBadFrame
			}
			n = v
		}
	}
}
