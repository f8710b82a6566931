package session

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/goleak"

	"github.com/quorum-go/quorum/copilot/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// hangGuard bounds waits in tests so a bug shows as a failure, not a hang.
// It is never a timing assertion.
const hangGuard = 10 * time.Second

// reply is one answer a request got.
type reply struct {
	ID     jsonrpc2.ID
	Result any
	Err    *jsonrpc2.Error
}

// recorder is a Replier that keeps every answer.
type recorder struct {
	mu      sync.Mutex
	replies []reply
	// refuse, when set, is returned by every answer, as a router returns
	// an answer it could not queue; nothing is recorded then.
	refuse error
}

func (r *recorder) Reply(_ context.Context, id jsonrpc2.ID, result any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.replies = append(r.replies, reply{ID: id, Result: result})
	return nil
}

func (r *recorder) ReplyWithError(_ context.Context, id jsonrpc2.ID, err *jsonrpc2.Error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse != nil {
		return r.refuse
	}
	r.replies = append(r.replies, reply{ID: id, Err: err})
	return nil
}

func (r *recorder) all() []reply {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]reply(nil), r.replies...)
}

// only returns the one answer to id, failing unless there is exactly one.
func (r *recorder) only(t *testing.T, id jsonrpc2.ID) reply {
	t.Helper()
	var got []reply
	for _, rp := range r.all() {
		if rp.ID == id {
			got = append(got, rp)
		}
	}
	if len(got) != 1 {
		t.Fatalf("request %v got %d answers (%+v), want 1", id, len(got), got)
	}
	return got[0]
}

// wantUnavailable checks that each id got exactly one CodeUnavailable error.
func (r *recorder) wantUnavailable(t *testing.T, ids ...jsonrpc2.ID) {
	t.Helper()
	for _, id := range ids {
		if rp := r.only(t, id); rp.Err == nil || rp.Err.Code != CodeUnavailable {
			t.Errorf("request %v: answer %+v, want a CodeUnavailable error", id, rp)
		}
	}
}

func num(n uint64) jsonrpc2.ID { return jsonrpc2.ID{Num: n} }

// eventMsg is a session.event notification as the CLI sends it.
func eventMsg(typ, data string) Message {
	if data == "" {
		data = "{}"
	}
	return NewNotification(protocol.NotificationSessionEvent, json.RawMessage(fmt.Sprintf(
		`{"sessionId":"s1","event":{"type":%q,"data":%s,"id":"ev-%08d","timestamp":"2025-06-01T12:00:00.000Z","parentId":null}}`,
		typ, data, eventIDs.Add(1))))
}

// eventIDs numbers the test events: each is a distinct event, as the CLI's
// are, so that the channel's deduplication keeps them all.
var eventIDs atomic.Int64

// numbered is a session.event carrying n, for order checks.
func numbered(n int) Message {
	return eventMsg("test.numbered", fmt.Sprintf(`{"n":%d}`, n))
}

func numberOf(t *testing.T, m Message) int {
	t.Helper()
	ev, err := m.Event()
	if err != nil {
		t.Fatalf("not an event: %v", err)
	}
	var d struct{ N *int }
	if err := ev.UnmarshalData(&d); err != nil || d.N == nil {
		t.Fatalf("event %s %s carries no number", ev.Type, ev.Data)
	}
	return *d.N
}

func deliver(t *testing.T, sink *Sink, msgs ...Message) {
	t.Helper()
	for _, m := range msgs {
		if d, _ := sink.Deliver(m); d != Delivered {
			t.Fatalf("Deliver(%s) = %v, want Delivered", m.Method, d)
		}
	}
}

// mustNew is New for a Config the test means to be valid.
func mustNew(t *testing.T, id string, cfg Config, onClose CloseFunc) (*Channel, *Sink) {
	t.Helper()
	ch, sink, err := New(id, cfg, onClose)
	if err != nil {
		t.Fatal(err)
	}
	return ch, sink
}

func newChannel(t *testing.T, cfg Config) (*Channel, *Sink) {
	t.Helper()
	ch, sink := mustNew(t, "s1", cfg, nil)
	t.Cleanup(func() { ch.Close(context.Background()) })
	return ch, sink
}
