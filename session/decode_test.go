package session

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// slowEvent is encoding/json's decoding of a session.event's params, the
// reference the hand decoder is held to.
func slowEvent(params []byte) (*Event, bool) {
	var p struct {
		Event *Event `json:"event"`
	}
	if json.Unmarshal(params, &p) != nil || p.Event == nil {
		return nil, false
	}
	return p.Event, true
}

// sameEvent compares two events field by field, ParentID by value.
func sameEvent(a, b Event) bool {
	if (a.ParentID == nil) != (b.ParentID == nil) || a.ParentID != nil && *a.ParentID != *b.ParentID {
		return false
	}
	a.ParentID, b.ParentID = nil, nil
	return reflect.DeepEqual(a, b)
}

// The hand decoder gives encoding/json's answer for the shapes the CLI
// sends, and declines what only encoding/json can judge.
func TestEventDecodedByHand(t *testing.T) {
	for _, tc := range []struct {
		params string
		fast   bool // the hand decoder takes it
	}{
		{`{"sessionId":"s","event":{"type":"assistant.message_delta","data":{"messageId":"m","deltaContent":"hi"},"id":"e1","timestamp":"t","parentId":"p","ephemeral":true}}`, true},
		{`{"sessionId":"s","event":{"type":"session.start","data":{},"id":"e1","parentId":null,"agentId":"a","extra":[1,{"x":2}]}}`, true},
		{`{"event":{"type":"x","id":"a","id":"b","data":1,"data":"two","ephemeral":false,"ephemeral":null}}`, true},
		{`{"event":{"type":"x","data":null}}`, true},
		{`{"event":{"Type":"x"}}`, false},                    // encoding/json matches regardless of case
		{`{"event":{"type":"caf\u00e9"}}`, false},            // an escape
		{`{"event":{"type":5}}`, false},                      // not a string: an error
		{`{"event":{"type":"x"},"event":{"id":"y"}}`, false}, // encoding/json merges the two
		{`{"Event":{"type":"x"}}`, false},
		{`{"event":null}`, false},
		{`{"event":{"type":"x"}`, false},
	} {
		d, fast := fastEvent([]byte(tc.params))
		if fast != tc.fast {
			t.Errorf("%s: taken by hand = %v, want %v", tc.params, fast, tc.fast)
			continue
		}
		if !fast {
			continue
		}
		want, ok := slowEvent([]byte(tc.params))
		if !ok || !sameEvent(d.event, *want) {
			t.Errorf("%s: by hand %+v, encoding/json %+v (%v)", tc.params, d.event, want, ok)
		}
	}
}

// A delta's text is cut from the event without decoding its data again,
// and comes out as protocol.AssistantMessageDeltaData has it.
func TestDeltaTextByHand(t *testing.T) {
	for _, tc := range []struct {
		data, text string
		fast       bool
	}{
		{`{"messageId":"m","deltaContent":"hello, world"}`, "hello, world", true},
		{`{"deltaContent":"a","deltaContent":"b","other":{"deltaContent":"c"}}`, "b", true},
		{`{"deltaContent":null,"parentToolCallId":"p"}`, "", true},
		{`{"deltaContent":"line\nbreak"}`, "", false},
		{`{"DeltaContent":"x"}`, "", false},
		{`{"deltaContent":"x","messageId":7}`, "", false},
	} {
		params := `{"event":{"type":"assistant.message_delta","data":` + tc.data + `}}`
		d, ok := fastEvent([]byte(params))
		if !ok {
			t.Fatalf("%s: the event itself was not taken by hand", params)
		}
		text, fast := d.deltaText()
		if fast != tc.fast || text != tc.text {
			t.Errorf("%s: %q (%v), want %q (%v)", tc.data, text, fast, tc.text, tc.fast)
		}
		m := NewNotification(protocol.NotificationSessionEvent, json.RawMessage(params))
		m.decodeEvent()
		var want protocol.AssistantMessageDeltaData
		wantErr := json.Unmarshal([]byte(tc.data), &want) != nil
		if got, ok := m.deltaText(); ok == wantErr || ok && got != want.DeltaContent {
			t.Errorf("%s: Message.deltaText = %q, %v; encoding/json %q (error %v)", tc.data, got, ok, want.DeltaContent, wantErr)
		}
	}
}

// Data shares Params' bytes, and the strings cut from the event's copy do
// not: changing Params afterwards changes no string.
func TestDecodedStringsAreCopies(t *testing.T) {
	params := []byte(`{"event":{"type":"session.idle","id":"e1","data":{}}}`)
	m := NewNotification(protocol.NotificationSessionEvent, params)
	ev, err := m.Event()
	if err != nil {
		t.Fatal(err)
	}
	copy(params, bytes.Repeat([]byte("x"), len(params)))
	if ev.Type != "session.idle" || ev.ID != "e1" {
		t.Fatalf("the event's strings changed with Params: %+v", ev)
	}
}

// FuzzEventDecode holds the hand decoder to encoding/json: whatever it
// takes, it decodes to the same Event, and a delta's text to the same
// DeltaContent.
func FuzzEventDecode(f *testing.F) {
	for _, s := range []string{
		`{"sessionId":"s","event":{"type":"assistant.message_delta","data":{"messageId":"m","deltaContent":"hi"},"id":"e1","timestamp":"t","parentId":"p","ephemeral":true}}`,
		`{"event":{"type":"x","parentId":null,"data":[1,2],"agentId":"a"}}`,
		`{"event":{"tYpe":"x"}}`,
		`{"event":{"type":"\u00e9","data":{"deltaContent":"\ud83d\ude00"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		d, ok := fastEvent(params)
		if !ok {
			return
		}
		want, wantOK := slowEvent(params)
		if !wantOK || !sameEvent(d.event, *want) {
			t.Fatalf("%q: by hand %+v, encoding/json %+v (%v)", params, d.event, want, wantOK)
		}
		text, ok := d.deltaText()
		if !ok {
			return
		}
		var dd protocol.AssistantMessageDeltaData
		if err := json.Unmarshal(d.event.Data, &dd); err != nil || dd.DeltaContent != text {
			t.Fatalf("%q: delta by hand %q, encoding/json %q (%v)", params, text, dd.DeltaContent, err)
		}
	})
}
