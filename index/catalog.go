package index

import (
	"slices"
	"strings"
	"sync"

	"github.com/tinehq/tine/objects"
)

// Catalog is a loaded, up-to-date catalog with its lookup tables. It is
// read-only and safe for concurrent use. Every oid it returns is a hint:
// read the object through an objects.Getter (which verifies it) before
// acting on it, and treat "not found" as a miss.
type Catalog struct {
	d           *data
	refsOf      map[objects.OID][]string
	attByID     map[objects.OID]int
	attByTarget map[objects.OID][]int
	annByTarget map[objects.OID][]objects.OID
	byScore     map[string][]scoreRow
	evidence    map[evidenceKey][]objects.OID
	runByID     map[objects.OID]int
	// byEvent guards eventByID, built on first use: the runs table never
	// looks an event up, so loading a catalog does not pay for it.
	byEvent   sync.Once
	eventByID map[objects.OID]int
	// inverse guards runsOf, event position -> run positions, built on
	// first use by RunsWithEvent.
	inverse sync.Once
	runsOf  [][]int32
}

// scoreRow is one evaluation score, pointing into the attestations.
type scoreRow struct {
	value float64
	att   int
}

// evidenceKey addresses one evidence-table row set.
type evidenceKey struct{ table, key string }

// newCatalog builds the in-memory lookup tables of d.
func newCatalog(d *data) *Catalog {
	c := &Catalog{d: d,
		refsOf:      map[objects.OID][]string{},
		attByID:     make(map[objects.OID]int, len(d.atts)),
		attByTarget: map[objects.OID][]int{},
		annByTarget: map[objects.OID][]objects.OID{},
		byScore:     map[string][]scoreRow{},
		evidence:    map[evidenceKey][]objects.OID{},
		runByID:     make(map[objects.OID]int, len(d.runs)),
	}
	for i := range d.runs {
		c.runByID[d.runs[i].Run] = i
	}
	for _, r := range d.refs {
		c.refsOf[r.ID] = append(c.refsOf[r.ID], r.Name)
	}
	for i := range d.atts {
		a := &d.atts[i]
		c.attByID[a.ID] = i
		if !a.Target.IsZero() {
			c.attByTarget[a.Target] = append(c.attByTarget[a.Target], i)
		}
		if a.Kind != KindEvaluation {
			continue
		}
		for _, s := range a.Scores {
			c.byScore[s.Name] = append(c.byScore[s.Name], scoreRow{value: s.Value, att: i})
		}
	}
	for _, rows := range c.byScore {
		// Best first; ties in attestation order, so results are stable.
		slices.SortStableFunc(rows, func(x, y scoreRow) int {
			switch {
			case x.value > y.value:
				return -1
			case x.value < y.value:
				return 1
			}
			return x.att - y.att
		})
	}
	for _, a := range d.anns {
		if !a.Target.IsZero() {
			c.annByTarget[a.Target] = append(c.annByTarget[a.Target], a.ID)
		}
	}
	for _, r := range d.runs {
		for _, k := range r.Keyed {
			ek := evidenceKey{k.Table, k.Key}
			c.evidence[ek] = append(c.evidence[ek], k.Event)
		}
	}
	for ek, ids := range c.evidence {
		sortOIDs(ids)
		c.evidence[ek] = slices.Compact(ids)
	}
	return c
}

// Counts returns the sizes of the catalog's tables.
func (c *Catalog) Counts() Counts { return c.d.counts() }

// Refs returns the ref snapshot entries at or under prefix (whole
// components; "refs/" optional; "" for all), sorted by name, of any type.
func (c *Catalog) Refs(prefix string) []RefEntry {
	var out []RefEntry
	for _, r := range c.d.refs {
		if underPrefix(r.Name, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// RunsByRef returns the refs at or under prefix that name runs, sorted by
// name: the runs-by-ref table.
func (c *Catalog) RunsByRef(prefix string) []RefEntry {
	var out []RefEntry
	for _, r := range c.Refs(prefix) {
		if r.ID.Type == objects.TypeRun {
			out = append(out, r)
		}
	}
	return out
}

// RefsOf returns the names of the refs that name id, sorted.
func (c *Catalog) RefsOf(id objects.OID) []string { return slices.Clone(c.refsOf[id]) }

// Attestation returns what the catalog holds about attestation id.
func (c *Catalog) Attestation(id objects.OID) (Attestation, bool) {
	i, ok := c.attByID[id]
	if !ok {
		return Attestation{}, false
	}
	return c.d.atts[i], true
}

// AttestationsFor returns the attestations whose target is run, sorted by
// oid: every one in the store, signed or not, of any claim kind.
func (c *Catalog) AttestationsFor(run objects.OID) []Attestation {
	idx := c.attByTarget[run]
	out := make([]Attestation, len(idx))
	for i, j := range idx {
		out[i] = c.d.atts[j]
	}
	return out
}

// AnnotationsFor returns the annotations whose target_id is target, sorted
// by oid (for example the waivers bound to one evidence event).
func (c *Catalog) AnnotationsFor(target objects.OID) []objects.OID {
	return slices.Clone(c.annByTarget[target])
}

// Evidence returns the events filed under key in the evidence table, sorted
// by oid. Only events of runs that refs name are indexed.
func (c *Catalog) Evidence(table, key string) []objects.OID {
	return slices.Clone(c.evidence[evidenceKey{table, key}])
}

// underPrefix matches ref names by whole components, like `tine refs`.
func underPrefix(name, prefix string) bool {
	prefix = strings.TrimSuffix(strings.TrimPrefix(prefix, "refs/"), "/")
	return prefix == "" || name == prefix || strings.HasPrefix(name, prefix+"/")
}
