package objects

import (
	"bytes"
	"encoding/binary"
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
// few lookups compare id's digest with each element's in place (every
// element has the same length, so the k-th is at a known offset), newest
// first: the events an append names (tips, parents) are the newest. Later
// lookups use an index of the whole list, built once. A RunBody is not
// safe for concurrent Index calls.
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
	var want [64]byte
	hex.Encode(want[:], id.Digest[:])
	first := binary.LittleEndian.Uint64(want[:8])
	list := b.eventList()
	step := eventElemLen(b.algo) + 1
	off := 1 + len(eventElemPrefix(b.algo))
	for i := b.count - 1; i >= 0; i-- {
		d := list[off+i*step : off+i*step+64]
		if binary.LittleEndian.Uint64(d) == first && bytes.Equal(d, want[:]) {
			return i
		}
	}
	return -1
}

// CheckLinks applies Links' run rules to the run whose body b is, as far
// as they reach beyond the events list's spelling (which SplitRunBody
// checked): manifests an object of blob oids, roots and tips lists of
// distinct event oids among the events, *_blob members blob oids. Whether
// the list repeats an event is not checked (that needs the whole list
// indexed): a run a ref names was checked whole when it was written, and
// fsck checks it again.
func (b *RunBody) CheckLinks() error {
	p := linkParser{a: b.algo}
	pl := payload(b)
	manifests, ok := pl.Get("manifests")
	if ok && manifests.Truthy() && manifests.Kind != KindObject {
		return Errorf(ReasonLinkRunManifestsNotObject, "manifests is a JSON %s, not an object", manifests.Kind)
	}
	for _, field := range [...]string{"roots", "tips"} {
		ids, err := p.oidList(pl, field, TypeEvent, ReasonLinkRunRootsTipsInvalid, ReasonLinkRunRootsTipsInvalid)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if b.Index(id) < 0 {
				return Errorf(ReasonLinkRunRootsTipsNotSubset, "%s names %s, which is not in events", field, id)
			}
		}
	}
	_, err := blobLinks(&p, pl)
	return err
}
