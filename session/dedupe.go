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
// and none costs more than about 400 KB.
//
// The set of hashes is an open-addressing table of its own (linear probing,
// deletion by backward shift) rather than a Go map: one probe sequence finds
// a repeat or the slot for a new id, and the table is a flat array. With a
// map (a lookup, an insert and, once the window is full, a delete per event)
// deduplication was 12% of the CPU per event at 512 sessions
// (BenchmarkEvents of the repository's benchmark suite; BENCHMARKS.md); the table takes an
// event with a full window from 90 to 52 ns (BenchmarkDedupe).
type dedupe struct {
	limit int
	table []uint64 // the set: 0 marks a free slot; len is a power of two
	count int      // hashes in table
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
	h := maphash.String(dedupeSeed, id) | 1 // never 0, the free mark
	slot := -1
	if d.table != nil {
		mask := len(d.table) - 1
		i := int(h>>7) & mask
		for d.table[i] != 0 {
			if d.table[i] == h {
				return false
			}
			i = (i + 1) & mask
		}
		slot = i
	}
	if len(d.ring) < d.limit {
		d.ring = append(d.ring, h)
	} else {
		d.remove(d.ring[d.next]) // the oldest leaves the window
		d.ring[d.next] = h
		d.next = (d.next + 1) % d.limit
		slot = -1 // the removal may have moved the free slot
	}
	if 2*(d.count+1) > len(d.table) {
		d.grow()
		slot = -1
	}
	if slot < 0 {
		slot = d.slotFor(h)
	}
	d.table[slot] = h
	d.count++
	return true
}

// slotFor returns the free slot where h, not in the table, goes.
func (d *dedupe) slotFor(h uint64) int {
	mask := len(d.table) - 1
	i := int(h>>7) & mask
	for d.table[i] != 0 {
		i = (i + 1) & mask
	}
	return i
}

// remove deletes h, shifting back the entries after it that would
// otherwise be cut off from their home slot.
func (d *dedupe) remove(h uint64) {
	mask := len(d.table) - 1
	i := int(h>>7) & mask
	for d.table[i] != h {
		if d.table[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	for j := (i + 1) & mask; d.table[j] != 0; j = (j + 1) & mask {
		// The entry at j may move to i if its home is not in (i, j].
		if home := int(d.table[j]>>7) & mask; (j-home)&mask >= (j-i)&mask {
			d.table[i] = d.table[j]
			i = j
		}
	}
	d.table[i] = 0
	d.count--
}

// grow doubles the table (from 16 slots), keeping it at most half full.
func (d *dedupe) grow() {
	old := d.table
	d.table = make([]uint64, max(16, 2*len(old)))
	for _, h := range old {
		if h != 0 {
			d.table[d.slotFor(h)] = h
		}
	}
}
