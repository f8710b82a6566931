package sim

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// store is what the simulated CLI keeps on disk: every session that has had
// a message, live or not, for the whole server (the real CLI keeps them in
// its state directory, which every client of one CLI process shares). A
// session enters it with its first user.message and leaves it with
// session.delete; session.destroy and the end of a connection leave it
// there, so that session.list lists it and session.resume takes it up
// again.
//
// mu is a leaf lock: it is taken under a session's lock (each persisted
// event updates the entry), never the other way round.
type store struct {
	mu      sync.Mutex
	seq     uint64 // orders modifications: the last modified entry is the last session
	entries map[string]*storeEntry
}

// storeEntry is one kept session: what session.list says of it, and the
// session object whose state a resume copies.
type storeEntry struct {
	meta protocol.SessionListEntry
	seq  uint64
	sess *session
}

// put records s's metadata as it is now, s being the session that last
// wrote it.
func (st *store) put(meta protocol.SessionListEntry, s *session) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.entries == nil {
		st.entries = map[string]*storeEntry{}
	}
	st.seq++
	st.entries[meta.SessionID] = &storeEntry{meta: meta, seq: st.seq, sess: s}
}

// get returns the entry of id.
func (st *store) get(id string) (protocol.SessionListEntry, *session, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	e := st.entries[id]
	if e == nil {
		return protocol.SessionListEntry{}, nil, false
	}
	return e.meta, e.sess, true
}

// remove deletes id and reports whether it was kept.
func (st *store) remove(id string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.entries[id]
	delete(st.entries, id)
	return ok
}

// list returns the kept sessions, the last modified first.
func (st *store) list() []protocol.SessionListEntry {
	st.mu.Lock()
	entries := make([]*storeEntry, 0, len(st.entries))
	for _, e := range st.entries {
		entries = append(entries, e)
	}
	st.mu.Unlock()
	slices.SortFunc(entries, func(a, b *storeEntry) int { return cmp.Compare(b.seq, a.seq) })
	out := make([]protocol.SessionListEntry, len(entries))
	for i, e := range entries {
		out[i] = e.meta
	}
	return out
}

// last returns the id of the last modified session, or "".
func (st *store) last() string {
	if l := st.list(); len(l) > 0 {
		return l[0].SessionID
	}
	return ""
}

// maxSummary bounds a session's summary, in runes. The real CLI derives its
// summary (and name) from the first prompt; how it shortens a long one was
// not observed, so the simulator cuts at this length.
const maxSummary = 100

// summaryOf returns the summary of a session whose first prompt is prompt:
// its first line, spaces collapsed, at most maxSummary runes.
func summaryOf(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	line = strings.Join(strings.Fields(line), " ")
	if r := []rune(line); len(r) > maxSummary {
		line = string(r[:maxSummary-1]) + "…"
	}
	return line
}
