package session

import (
	"bytes"
	"unsafe"

	"github.com/quorum-go/quorum/internal/wire"
)

// Why events are decoded by hand: decoding each session.event with
// encoding/json on its consumer's goroutine, and each text delta's data
// again, was two thirds of the CPU left per event once the reader scanned
// each frame once (BenchmarkEvents of the repository's benchmark suite, 64 sessions; the
// figures are in BENCHMARKS.md). The consumer now decodes an event once, in
// one pass over it, with the wire package's scanner: one copy of the event
// as a string, from which the Event's strings are cut, and one allocation
// for the Event and its parentId. Data is not copied: it shares the bytes
// of Message.Params.
//
// The hand decoder takes only what it can decode exactly as encoding/json
// would: members named exactly, strings without escapes, values of the
// fields' types. Anything else (a key that differs only in case, an escape,
// a number where a string belongs, a second "event") goes to encoding/json,
// so odd input costs time, never a different result. FuzzEventDecode holds
// the two to the same answers.

// decoded is a session.event's event, decoded once.
type decoded struct {
	event  Event
	parent string // what event.ParentID points to
	text   string // the event object's bytes; event's strings are cut from it
	data   int    // where event.Data starts in text, or -1
}

// The members of an event that Event has fields for.
var eventFields = []string{"id", "timestamp", "parentId", "type", "data", "ephemeral", "agentId"}

// fastEvent decodes the event of a session.event's params by hand, or
// reports false for encoding/json to decode it.
func fastEvent(params []byte) (*decoded, bool) {
	var raw []byte
	events := 0
	if !plainMembers(params, []string{"event"}, func(_ int, value []byte) bool {
		events++
		raw = value
		return value[0] == '{'
	}) || events != 1 {
		return nil, false
	}
	// The Event's strings are cut from one copy of the event's bytes.
	d := &decoded{text: string(raw), data: -1}
	text := d.text
	str := func(value []byte, field *string) bool {
		switch value[0] {
		case 'n': // null leaves a string as it is
			return true
		case '"':
			inner := value[1 : len(value)-1]
			if !wire.Plain(inner) {
				return false
			}
			start := offset(raw, inner)
			*field = text[start : start+len(inner)]
			return true
		}
		return false
	}
	ev := &d.event
	ok := plainMembers(raw, eventFields, func(field int, value []byte) bool {
		switch eventFields[field] {
		case "id":
			return str(value, &ev.ID)
		case "timestamp":
			return str(value, &ev.Timestamp)
		case "type":
			return str(value, &ev.Type)
		case "agentId":
			return str(value, &ev.AgentID)
		case "parentId":
			if value[0] == 'n' {
				ev.ParentID = nil
				return true
			}
			ev.ParentID = &d.parent
			return str(value, &d.parent)
		case "data":
			ev.Data, d.data = value, offset(raw, value)
			return true
		case "ephemeral":
			switch string(value) {
			case "true", "false":
				ev.Ephemeral = value[0] == 't'
				return true
			case "null":
				return true
			}
		}
		return false
	})
	if !ok {
		return nil, false
	}
	return d, true
}

// The members of assistant.message_delta's data that the protocol's type
// has fields for, all strings.
var deltaFields = []string{"messageId", "deltaContent", "parentToolCallId"}

// deltaText returns an assistant.message_delta's deltaContent, as
// protocol.AssistantMessageDeltaData would hold it, cut from the event's
// text without a copy; ok is false when only encoding/json can say.
func (d *decoded) deltaText() (text string, ok bool) {
	if d.data < 0 {
		return "", false
	}
	data := d.event.Data
	ok = plainMembers(data, deltaFields, func(field int, value []byte) bool {
		switch value[0] {
		case 'n':
			return true
		case '"':
			inner := value[1 : len(value)-1]
			if !wire.Plain(inner) {
				return false
			}
			if deltaFields[field] == "deltaContent" {
				start := d.data + offset(data, inner)
				text = d.text[start : start+len(inner)]
			}
			return true
		}
		return false
	})
	if !ok {
		return "", false
	}
	return text, true
}

// plainMembers calls fn with the index in fields of each member of the
// object b named exactly as a field, in order, and reports whether b is a
// valid object that encoding/json would read the same way: false when a
// key matches a field only regardless of case, or is not taken as written
// (an escape), or when fn reports false.
func plainMembers(b []byte, fields []string, fn func(field int, value []byte) bool) bool {
	ok := true
	valid := wire.Members(b, func(key []byte, escaped bool, value []byte) {
		if !ok {
			return
		}
		if escaped {
			ok = false
			return
		}
		for i, f := range fields {
			if string(key) == f {
				ok = fn(i, value)
				return
			}
		}
		for _, f := range fields {
			if bytes.EqualFold(key, []byte(f)) {
				ok = false // encoding/json would take it for f
				return
			}
		}
	})
	return valid && ok
}

// offset is where inner, a part of outer, starts in it.
func offset(outer, inner []byte) int {
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(inner))) - uintptr(unsafe.Pointer(unsafe.SliceData(outer))))
}
