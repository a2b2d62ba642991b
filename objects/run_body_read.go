package objects

import (
	"bytes"
	"encoding/hex"
)

// maxListSearches is how many events RunBody looks up by scanning the
// list's bytes before it indexes the whole list once: a record looks up a
// handful (its parents, its tips), an import or a check of many links
// pays the index.
const maxListSearches = 16

// Algo returns the hash profile the body was split for.
func (b *RunBody) Algo() Algo { return b.algo }

// Body returns the body b was split from.
func (b *RunBody) Body() []byte { return b.body }

// Len returns the number of events in the run's events list.
func (b *RunBody) Len() int { return b.count }

// Get returns the parsed value of the top-level member key, for any member
// but events (whose value is never parsed: ok is false for it).
func (b *RunBody) Get(key string) (Value, bool) {
	for i := range b.members {
		if b.members[i].key == key {
			if i == b.events {
				return Value{}, false
			}
			return b.members[i].value, true
		}
	}
	return Value{}, false
}

// Keys returns the top-level keys in canonical order.
func (b *RunBody) Keys() []string {
	keys := make([]string, len(b.members))
	for i, m := range b.members {
		keys[i] = m.key
	}
	return keys
}

// eventList returns the bytes of the events list ("[...]"), nil when the
// run has no events member.
func (b *RunBody) eventList() []byte {
	if b.events < 0 {
		return nil
	}
	return b.members[b.events].raw
}

// Event returns the i-th event of the list, 0 <= i < Len.
func (b *RunBody) Event(i int) OID {
	el := eventElemLen(b.algo)
	start := 1 + i*(el+1) + len(eventElemPrefix(b.algo))
	id := OID{Type: TypeEvent, Algo: b.algo}
	// SplitRunBody checked the spelling: 64 lowercase hex digits.
	_, _ = hex.Decode(id.Digest[:], b.eventList()[start:start+64])
	return id
}

// Index returns the position of id in the events list, or -1. The first
// few lookups scan the list's bytes (each element has the same length, so
// a match's offset is its position); later ones use an index built once.
// A RunBody is not safe for concurrent Index calls.
func (b *RunBody) Index(id OID) int {
	if id.Type != TypeEvent || id.Algo != b.algo || b.count == 0 {
		return -1
	}
	if b.index != nil {
		if i, ok := b.index[id]; ok {
			return i
		}
		return -1
	}
	if b.searches++; b.searches > maxListSearches {
		b.index = make(map[OID]int, b.count)
		for i := range b.count {
			b.index[b.Event(i)] = i
		}
		return b.Index(id)
	}
	var pat [96]byte
	p := append(pat[:0], '"')
	p = append(p, id.String()...)
	p = append(p, '"')
	off := bytes.Index(b.eventList(), p)
	if off < 0 {
		return -1
	}
	return (off - 1) / (eventElemLen(b.algo) + 1)
}
