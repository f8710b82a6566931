package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// A Feed is the byte stream the Copilot CLI sends while many sessions
// stream a reply at once, made up ahead so that writing it costs next to
// nothing: the benchmarks that read it measure the reader, not the writer.
//
// Each session's stream is a run of turns. A turn is Chunks pairs of
// assistant.message_delta (about 20 characters of text, as the CLI cuts
// them) and assistant.streaming_delta, then session.idle, in the shape and
// field order the simulator and CLI 1.0.102 send (about 400 bytes a delta).
// The sessions' events interleave round robin, as concurrent turns do.
//
// Every event has its own id, also across repeats of the feed, so that a
// session's deduplication of events the CLI sends twice drops none of them.
type Feed struct {
	ids    []string
	cycle  []byte // one turn of every session, interleaved
	frames []int  // where each frame starts in cycle, and the end
	counts []int  // offsets in cycle of each event's 12-digit counter
	stamps []int  // offsets in cycle of each delta text's time stamp, or -1
	events int    // events in cycle
	next   uint64 // the counter's next value
}

// The counter in each event id: the last of its five UUID groups.
const counterDigits = 12

// NewFeed returns a feed of n sessions whose turns stream chunks pieces each.
func NewFeed(n, chunks int) *Feed {
	f := &Feed{ids: make([]string, n)}
	for i := range f.ids {
		f.ids[i] = fmt.Sprintf("5e55%04x-0000-4000-8000-%012x", i, i)
	}
	perTurn := 2*chunks + 1
	f.events = n * perTurn
	for step := 0; step < perTurn; step++ {
		for _, id := range f.ids {
			var ev string
			switch {
			case step == perTurn-1:
				ev = `{"type":"session.idle","data":{},"id":"` + idPrefix + `%s","timestamp":"2026-11-22T02:00:00.000Z","parentId":"7d2c1a9e-3b4f-4e5d-8a6b-1c2d3e4f5a6b","ephemeral":true}`
			case step%2 == 0:
				// 20 characters of text: a time stamp (see WritePaced), then the piece's number.
				ev = `{"type":"assistant.message_delta","data":{"messageId":"6c1f0d8e-2a4b-4c55-9e7d-1b2c3d4e5f60","deltaContent":"` +
					stampZeros + fmt.Sprintf(":%03d", step/2%1000) +
					`"},"id":"` + idPrefix + `%s","timestamp":"2026-11-22T02:00:00.000Z","parentId":"7d2c1a9e-3b4f-4e5d-8a6b-1c2d3e4f5a6b","ephemeral":true}`
			default:
				ev = `{"type":"assistant.streaming_delta","data":{"totalResponseSizeBytes":` + strconv.Itoa(10*(step+1)) +
					`},"id":"` + idPrefix + `%s","timestamp":"2026-11-22T02:00:00.000Z","parentId":"7d2c1a9e-3b4f-4e5d-8a6b-1c2d3e4f5a6b","ephemeral":true}`
			}
			body := `{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"` + id + `","event":` + ev + `}}`
			marker := strings.Index(body, idPrefix+"%s") + len(idPrefix)
			body = body[:marker] + zeros + body[marker+2:]
			head := "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
			f.frames = append(f.frames, len(f.cycle))
			f.counts = append(f.counts, len(f.cycle)+len(head)+marker)
			stamp := -1
			if at := strings.Index(body, `"deltaContent":"`+stampZeros); at >= 0 {
				stamp = len(f.cycle) + len(head) + at + len(`"deltaContent":"`)
			}
			f.stamps = append(f.stamps, stamp)
			f.cycle = append(f.cycle, head...)
			f.cycle = append(f.cycle, body...)
		}
	}
	f.frames = append(f.frames, len(f.cycle))
	return f
}

const (
	idPrefix   = "0f6e2b7a-8c1d-4e3f-a5b6-"
	zeros      = "000000000000"
	stampZeros = "0000000000000000"
)

// SessionIDs returns the feed's session ids.
func (f *Feed) SessionIDs() []string { return f.ids }

// EventsPerCycle is how many events one turn of every session makes; a
// feed is written in whole cycles.
func (f *Feed) EventsPerCycle() int { return f.events }

// Cycles returns how many cycles carry at least events events.
func (f *Feed) Cycles(events int) int { return (events + f.events - 1) / f.events }

// MeanFrameBytes is the mean size of a frame, header included.
func (f *Feed) MeanFrameBytes() int { return len(f.cycle) / f.events }

// Cycle returns the next cycle's bytes, its event ids fresh. The slice is
// the feed's own and is rewritten by the next call.
func (f *Feed) Cycle() []byte {
	for _, off := range f.counts {
		putCounter(f.cycle[off:off+counterDigits], f.next)
		f.next++
	}
	return f.cycle
}

// WriteCycles writes cycles whole cycles to w.
func (f *Feed) WriteCycles(w io.Writer, cycles int) error {
	for range cycles {
		if _, err := w.Write(f.Cycle()); err != nil {
			return err
		}
	}
	return nil
}

// putCounter writes v in hex, zero-padded, into b.
func putCounter(b []byte, v uint64) {
	const hex = "0123456789abcdef"
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = hex[v&15]
		v >>= 4
	}
}

// WritePaced writes cycles cycles to w frame by frame, rate frames a
// second, each delta's text starting with the time it was written: 16 hex
// digits of nanoseconds since epoch (see Stamp). It stops early when stop
// is closed.
func (f *Feed) WritePaced(w io.Writer, cycles, rate int, epoch time.Time, stop <-chan struct{}) error {
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	sent := 0
	for range cycles {
		f.Cycle() // fresh ids
		for i := range f.events {
			due := start.Add(time.Duration(sent) * interval)
			if wait := time.Until(due); wait > 0 {
				select {
				case <-time.After(wait):
				case <-stop:
					return nil
				}
			}
			frame := f.cycle[f.frames[i]:f.frames[i+1]]
			if at := f.stamps[i]; at >= 0 {
				putCounter(f.cycle[at:at+len(stampZeros)], uint64(time.Since(epoch)))
			}
			if _, err := w.Write(frame); err != nil {
				return err
			}
			sent++
		}
	}
	return nil
}

// Stamp reads the time stamp WritePaced put at the start of a delta's
// text, as a time since epoch; ok is false for a text without one.
func Stamp(text string) (time.Duration, bool) {
	if len(text) < len(stampZeros) {
		return 0, false
	}
	v, err := strconv.ParseUint(text[:len(stampZeros)], 16, 64)
	return time.Duration(v), err == nil && v > 0
}
