package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/quorum-go/quorum/internal/testing/testutil"
)

// frameOf frames body as the Copilot CLI does.
func frameOf(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

func readerOf(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

// rpcMessage decides between request and response the way jsonrpc2's
// unexported anyMessage does (the value the router's read loop decodes
// into), then decodes into jsonrpc2's own types.
type rpcMessage struct {
	Request  *jsonrpc2.Request
	Response *jsonrpc2.Response
}

func (m *rpcMessage) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(data, &batch); err != nil {
			return err
		}
		if len(batch) == 0 {
			return errors.New("invalid empty batch")
		}
		return errors.New("batches are not supported") // anyMessage fails them too, later
	}
	var probe struct {
		ID     any             `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"` // "null" when explicitly null
		Error  any             `json:"error"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return err
	}
	isRequest := probe.Method != nil
	isResponse := len(probe.Result) > 0 || probe.Error != nil
	switch {
	case isRequest && !isResponse:
		m.Request = new(jsonrpc2.Request)
		return json.Unmarshal(data, m.Request)
	case isResponse && !isRequest:
		m.Response = new(jsonrpc2.Response)
		if err := json.Unmarshal(data, m.Response); err != nil {
			return err
		}
		if m.Response.Error == nil && m.Response.Result == nil {
			null := json.RawMessage("null") // as anyMessage does
			m.Response.Result = &null
		}
		return nil
	}
	return errors.New("unable to determine message type (request or response)")
}

func TestCodecReadsFrames(t *testing.T) {
	const body = `{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s1"}}`
	for _, tc := range []struct{ name, input string }{
		{"plain", frameOf(body)},
		{"content type after", fmt.Sprintf("Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s", len(body), body)},
		{"content type before", fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)},
		{"lower case", fmt.Sprintf("content-length: %d\r\n\r\n%s", len(body), body)},
		{"upper case, no space", fmt.Sprintf("CONTENT-LENGTH:%d\r\n\r\n%s", len(body), body)},
		{"spaces around value", fmt.Sprintf("Content-Length:   %d  \r\n\r\n%s", len(body), body)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCodec(Limits{}, func(err error, _ []byte) { t.Errorf("malformed: %v", err) })
			r := readerOf(tc.input + frameOf(`{"jsonrpc":"2.0","id":7,"result":null}`))
			var m rpcMessage
			if err := c.ReadObject(r, &m); err != nil {
				t.Fatal(err)
			}
			if m.Request == nil || m.Request.Method != "session.event" || m.Request.Params == nil || string(*m.Request.Params) != `{"sessionId":"s1"}` {
				t.Fatalf("first frame decoded as %+v", m)
			}
			// The header's extras must not have eaten into the next frame.
			var m2 rpcMessage
			if err := c.ReadObject(r, &m2); err != nil {
				t.Fatal(err)
			}
			if m2.Response == nil || m2.Response.ID != (jsonrpc2.ID{Num: 7}) {
				t.Fatalf("second frame decoded as %+v", m2)
			}
			if err := c.ReadObject(r, &m2); err != io.EOF {
				t.Fatalf("at the end: err = %v, want io.EOF", err)
			}
		})
	}
}

func TestCodecReadErrors(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		name   string
		limits Limits
		input  string
		want   error
	}{
		{"bare LF line endings", Limits{}, "Content-Length: 2\n\n{}", ErrBadHeader},
		{"LF on the blank line", Limits{}, "Content-Length: 2\r\n\n{}", ErrBadHeader},
		{"missing Content-Length", Limits{}, "Content-Type: application/json\r\n\r\n{}", ErrBadHeader},
		{"empty header section", Limits{}, "\r\n{}", ErrBadHeader},
		{"negative length", Limits{}, "Content-Length: -1\r\n\r\n{}", ErrBadHeader},
		{"garbage length", Limits{}, "Content-Length: 12abc\r\n\r\n{}", ErrBadHeader},
		{"empty length", Limits{}, "Content-Length: \r\n\r\n{}", ErrBadHeader},
		{"hex length", Limits{}, "Content-Length: 0x10\r\n\r\n{}", ErrBadHeader},
		{"length beyond int64", Limits{}, "Content-Length: 99999999999999999999999\r\n\r\n{}", ErrBadHeader},
		{"no colon", Limits{}, "Content-Length 2\r\n\r\n{}", ErrBadHeader},
		{"over MaxFrameBytes", Limits{MaxFrameBytes: 100}, "Content-Length: 101\r\n\r\n" + long + "x", ErrFrameTooLarge},
		{"over the default MaxFrameBytes", Limits{}, fmt.Sprintf("Content-Length: %d\r\n\r\n", DefaultMaxFrameBytes+1), ErrFrameTooLarge},
		{"header lines over MaxHeaderBytes", Limits{MaxHeaderBytes: 64}, "X-Pad: " + long[:50] + "\r\nContent-Length: 2\r\n\r\n{}", ErrBadHeader},
		{"one byte over MaxHeaderBytes", Limits{MaxHeaderBytes: 20}, "Content-Length: 2\r\n\r\n{}", ErrBadHeader},
		{"truncated body", Limits{}, "Content-Length: 10\r\n\r\n{\"id\":", io.ErrUnexpectedEOF},
		{"no body at all", Limits{}, "Content-Length: 10\r\n\r\n", io.ErrUnexpectedEOF},
		{"truncated header line", Limits{}, "Content-Len", io.ErrUnexpectedEOF},
		{"header without its blank line", Limits{}, "Content-Length: 2\r\n", io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCodec(tc.limits, func(err error, _ []byte) { t.Errorf("malformed: %v", err) })
			var m rpcMessage
			err := c.ReadObject(readerOf(tc.input), &m)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if m.Request != nil || m.Response != nil {
				t.Errorf("a failed read filled the value: %+v", m)
			}
		})
	}
}

func TestCodecHeaderAtTheLimit(t *testing.T) {
	header := "Content-Length: 2\r\n\r\n" // 21 bytes
	c := NewCodec(Limits{MaxHeaderBytes: len(header)}, nil)
	var v json.RawMessage
	if err := c.ReadObject(readerOf(header+"{}"), &v); err != nil {
		t.Fatalf("a header of exactly MaxHeaderBytes: %v", err)
	}
	if string(v) != "{}" {
		t.Fatalf("body = %s", v)
	}
}

func TestCodecEmptyStreamIsEOF(t *testing.T) {
	var v json.RawMessage
	if err := NewCodec(Limits{}, nil).ReadObject(readerOf(""), &v); err != io.EOF {
		t.Fatalf("err = %v, want io.EOF itself", err)
	}
}

// A peer that sends a header line with no end must be cut off at the limit,
// not waited for.
func TestCodecEndlessHeaderLineFailsAtTheLimit(t *testing.T) {
	for _, prefix := range []string{"", "Content-Length: 5\r\n"} {
		pr, pw := io.Pipe()
		t.Cleanup(func() { pw.Close(); pr.Close() })
		const limit = 256
		go func() {
			// Exactly the limit, then nothing: the pipe stays open.
			pw.Write([]byte(prefix + strings.Repeat("a", limit-len(prefix))))
		}()
		c := NewCodec(Limits{MaxHeaderBytes: limit}, nil)
		err := testutil.Await(t, "ReadObject on an endless header line", hangGuard, func() error {
			var v json.RawMessage
			return c.ReadObject(bufio.NewReaderSize(pr, 64<<10), &v)
		})
		if !errors.Is(err, ErrBadHeader) {
			t.Fatalf("prefix %q: err = %v, want ErrBadHeader", prefix, err)
		}
	}
}

// An oversize Content-Length ends the read at once; the body is never read
// (here it is never sent).
func TestCodecFrameTooLargeDoesNotReadTheBody(t *testing.T) {
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close(); pr.Close() })
	go pw.Write([]byte("Content-Length: 1048577\r\n\r\n{"))
	c := NewCodec(Limits{MaxFrameBytes: 1 << 20}, nil)
	err := testutil.Await(t, "ReadObject on an oversize frame", hangGuard, func() error {
		var v json.RawMessage
		return c.ReadObject(bufio.NewReader(pr), &v)
	})
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("err = %v, want ErrFrameTooLarge", err)
	}
	if !strings.Contains(err.Error(), "1048577") {
		t.Errorf("err = %v; it should name the length", err)
	}
}

func TestCodecSkipsBodiesThatAreNotMessages(t *testing.T) {
	bad := []string{
		`{"jsonrpc":"2.0","method":`, // invalid JSON
		`42`,
		`{}`,
		`[]`,
		`[{"jsonrpc":"2.0","method":"a"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, // both request and response
		`null`,
		``,
	}
	var input strings.Builder
	for _, b := range bad {
		input.WriteString(frameOf(b))
	}
	input.WriteString(frameOf(`{"jsonrpc":"2.0","id":"a1","method":"tool.call","params":{"sessionId":"s"}}`))
	input.WriteString(frameOf(`{"jsonrpc":"2.0","id":3,"result":{"ok":true}}`))

	var got []string
	c := NewCodec(Limits{}, func(err error, body []byte) {
		if !errors.Is(err, ErrMalformedMessage) {
			t.Errorf("malformed err = %v, want ErrMalformedMessage", err)
		}
		got = append(got, string(body))
	})
	r := readerOf(input.String())
	var m rpcMessage
	if err := c.ReadObject(r, &m); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != strings.Join(bad, "|") {
		t.Errorf("malformed bodies reported:\n%q\nwant\n%q", got, bad)
	}
	if m.Request == nil || m.Request.Method != "tool.call" || m.Request.ID != (jsonrpc2.ID{Str: "a1", IsString: true}) || m.Response != nil {
		t.Fatalf("decoded %+v", m)
	}
	m = rpcMessage{}
	if err := c.ReadObject(r, &m); err != nil {
		t.Fatal(err)
	}
	if m.Response == nil || m.Request != nil || string(*m.Response.Result) != `{"ok":true}` {
		t.Fatalf("decoded %+v", m)
	}
}

// A decode that fails half-way must not leave its fields in the value the
// next frame is decoded into.
func TestCodecFailedDecodeLeavesNoResidue(t *testing.T) {
	type msg struct {
		Method string          `json:"method"`
		ID     int             `json:"id"`
		Params json.RawMessage `json:"params"`
	}
	input := frameOf(`{"method":"leftover","params":{"x":1},"id":"not a number"}`) + frameOf(`{"id":2}`)
	malformed := 0
	c := NewCodec(Limits{}, func(error, []byte) { malformed++ })
	var m msg
	if err := c.ReadObject(readerOf(input), &m); err != nil {
		t.Fatal(err)
	}
	if malformed != 1 {
		t.Errorf("malformed = %d, want 1", malformed)
	}
	if m.Method != "" || m.Params != nil || m.ID != 2 {
		t.Fatalf("decoded %+v, want only id 2", m)
	}
}

// A value json cannot decode into at all is the caller's bug, not a bad
// frame: it must be reported, not skipped frame after frame or panicked on.
func TestCodecRejectsANonPointer(t *testing.T) {
	c := NewCodec(Limits{}, func(err error, _ []byte) { t.Errorf("malformed called: %v", err) })
	for _, v := range []any{struct{}{}, (*json.RawMessage)(nil), nil} {
		r := readerOf(frameOf(`{"id":1,"result":1}`) + frameOf(`{"id":2,"result":2}`))
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("ReadObject(%T) panicked: %v", v, p)
				}
			}()
			err = c.ReadObject(r, v)
		}()
		var iue *json.InvalidUnmarshalError
		if !errors.As(err, &iue) {
			t.Errorf("ReadObject(%T): err = %v, want a *json.InvalidUnmarshalError", v, err)
		}
	}
}

func TestCodecWriteObjectFraming(t *testing.T) {
	var buf bytes.Buffer
	obj := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": map[string]string{"message": "hi"}}
	if err := NewCodec(Limits{}, nil).WriteObject(&buf, obj); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(obj)
	if want := frameOf(string(body)); buf.String() != want {
		t.Fatalf("wrote %q, want %q", buf.String(), want)
	}
}

// Bodies of every size up to and past the reused buffer's bounds decode
// correctly one after another (the body buffer is reused and resized).
func TestCodecBodySizes(t *testing.T) {
	var input strings.Builder
	sizes := []int{10, 5000, 100, keepBody + 10, 50, keepBody - 10, 3}
	for _, n := range sizes {
		input.WriteString(frameOf(`"` + strings.Repeat("y", n) + `"`))
	}
	c := NewCodec(Limits{}, func(err error, _ []byte) { t.Errorf("malformed: %v", err) })
	r := readerOf(input.String())
	for _, n := range sizes {
		var s string
		if err := c.ReadObject(r, &s); err != nil {
			t.Fatal(err)
		}
		if len(s) != n || strings.Trim(s, "y") != "" {
			t.Fatalf("decoded %d bytes, want %d", len(s), n)
		}
	}
}
