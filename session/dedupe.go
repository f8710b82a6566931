package session

import "hash/maphash"

// DefaultDedupeWindow is how many recent event ids a channel remembers to
// drop repeats. The real CLI 1.0.102 was seen to send an event again as far
// as 6,850 events after the first copy (eight sessions streaming 3,000
// chunks each, one turn of about 7,900 events), so the window holds more
// than a long turn.
const DefaultDedupeWindow = 16384

// dedupe remembers the ids of the last events a channel delivered, so that
// an event the CLI sends twice is delivered once. Ids are kept as 64-bit
// hashes (a false match between two of 16,384 ids has odds of about 1e-11),
// in a ring that grows with use: a session that saw few events costs little,
// and none costs more than about 300 KB.
type dedupe struct {
	limit int
	seen  map[uint64]struct{}
	ring  []uint64 // the remembered hashes, oldest at next once full
	next  int
}

var dedupeSeed = maphash.MakeSeed()

func newDedupe(limit int) *dedupe {
	return &dedupe{limit: limit}
}

// firstTime records id and reports whether it was not seen before. An empty
// id (a peer that sends none) is always new: there is nothing to compare.
func (d *dedupe) firstTime(id string) bool {
	if id == "" || d.limit <= 0 {
		return true
	}
	h := maphash.String(dedupeSeed, id)
	if _, ok := d.seen[h]; ok {
		return false
	}
	if d.seen == nil {
		d.seen = make(map[uint64]struct{})
	}
	if len(d.ring) < d.limit {
		d.ring = append(d.ring, h)
	} else {
		delete(d.seen, d.ring[d.next])
		d.ring[d.next] = h
		d.next = (d.next + 1) % d.limit
	}
	d.seen[h] = struct{}{}
	return true
}
