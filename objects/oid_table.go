package objects

import (
	"fmt"
	"math"
	"sync"
)

// OIDTable numbers oids: the first oid it sees is 0, the next new one 1,
// and so on. A checker that remembers many lists of oids sharing most of
// their members (the runs of a loop list mostly the same events) keeps
// each list as 4-byte numbers instead of 40-byte oids, and each distinct
// oid once. It is safe for concurrent use; the zero OIDTable is empty and
// ready.
type OIDTable struct {
	mu  sync.RWMutex
	ids []OID
	num map[OID]uint32
}

// Numbers appends the numbers of ids to dst, numbering the oids it has not
// seen, and returns the extended slice. It fails only past 2^32 - 1
// distinct oids.
func (t *OIDTable) Numbers(dst []uint32, ids []OID) ([]uint32, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.num == nil {
		t.num = map[OID]uint32{}
	}
	for _, id := range ids {
		n, ok := t.num[id]
		if !ok {
			if uint64(len(t.ids)) >= math.MaxUint32 {
				return dst, fmt.Errorf("oid table: more than %d distinct oids", uint32(math.MaxUint32))
			}
			n = uint32(len(t.ids))
			t.num[id] = n
			t.ids = append(t.ids, id)
		}
		dst = append(dst, n)
	}
	return dst, nil
}

// OIDs appends the oids numbered ns to dst and returns the extended slice.
// Every number must have come from Numbers on t.
func (t *OIDTable) OIDs(dst []OID, ns []uint32) []OID {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, n := range ns {
		dst = append(dst, t.ids[n])
	}
	return dst
}

// Len returns how many distinct oids t has numbered.
func (t *OIDTable) Len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.ids)
}
