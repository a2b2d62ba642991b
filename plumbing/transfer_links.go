package plumbing

import (
	"fmt"

	"github.com/tinehq/tine/objects"
)

// transferLinks holds the links a transfer walk parsed, by included oid,
// each list as numbers in one objects.OIDTable: a loop's runs each list
// most of the same events, so their lists as oids (40 bytes each) would
// outweigh everything else the walk keeps, and as numbers they cost 4
// bytes an entry, each distinct oid kept once. A blob is included with no
// links.
type transferLinks struct {
	table objects.OIDTable
	m     map[objects.OID][]uint32
}

// newTransferLinks returns an empty set of link lists.
func newTransferLinks() *transferLinks {
	return &transferLinks{m: map[objects.OID][]uint32{}}
}

// put records links as id's. It fails only past 2^32 - 1 distinct oids.
func (t *transferLinks) put(id objects.OID, links []objects.OID) error {
	if len(links) == 0 {
		t.m[id] = nil
		return nil
	}
	ns, err := t.table.Numbers(make([]uint32, 0, len(links)), links)
	if err != nil {
		return err
	}
	t.m[id] = ns
	return nil
}

// has reports whether id's links are recorded (id is included).
func (t *transferLinks) has(id objects.OID) bool {
	_, ok := t.m[id]
	return ok
}

// get returns id's links as a new slice, and whether they are recorded.
func (t *transferLinks) get(id objects.OID) ([]objects.OID, bool) {
	ns, ok := t.m[id]
	if !ok || len(ns) == 0 {
		return nil, ok
	}
	return t.table.OIDs(make([]objects.OID, 0, len(ns)), ns), true
}

// runTips returns the set of a run's tips (its links were checked already).
func runTips(o *objects.Object) (map[objects.OID]bool, error) {
	o, err := o.WithValue()
	if err != nil {
		return nil, fmt.Errorf("transfer closure: %w", err)
	}
	v, _ := o.Value.Get("tips")
	tips := make(map[objects.OID]bool, len(v.Array))
	for _, e := range v.Array {
		id, err := objects.ParseOIDFor(o.ID.Algo, e.Str)
		if err != nil {
			return nil, fmt.Errorf("transfer closure: run %s tips: %w", o.ID, err)
		}
		tips[id] = true
	}
	return tips, nil
}
