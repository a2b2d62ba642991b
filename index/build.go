package index

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tinehq/tine/objects"
)

// Source is what the catalog reads objects from: any objects.Store.
type Source interface {
	objects.Getter
	// List enumerates object ids by type, then digest (objects.Store.List).
	// A Source that is also an objects.TypeLister is asked for the
	// attestations and annotations alone.
	List(ctx context.Context, fn func(objects.OID) error) error
}

// RefLister lists refs by name: *refs.Store satisfies it.
type RefLister interface {
	List(ctx context.Context, prefix string, fn func(name string, id objects.OID) error) error
}

// state is what the repository holds now, which a catalog must match.
type state struct {
	refs []RefEntry
	atts []objects.OID
	anns []objects.OID
}

// describerTypes are the types of the objects the catalog lists by id:
// attestations and annotations, which describe runs.
var describerTypes = []objects.Type{objects.TypeAnnotation, objects.TypeAttestation}

// readState snapshots every ref, then lists the attestation and annotation
// ids of the store (names only: no object is read). Refs are read first so
// the snapshot a catalog records is never newer than what it indexed.
func readState(ctx context.Context, src Source, rl RefLister) (*state, error) {
	st := &state{}
	err := rl.List(ctx, "", func(name string, id objects.OID) error {
		st.refs = append(st.refs, RefEntry{Name: name, ID: id})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("catalog: list refs: %w", err)
	}
	slices.SortFunc(st.refs, func(a, b RefEntry) int { return compareString(a.Name, b.Name) })
	// Only the two types the catalog lists: a store that can enumerate by
	// type (objects.TypeLister) never lists, or sorts, the ids of the
	// events and blobs, which outnumber them by thousands to one.
	err = objects.ListTypes(ctx, src, describerTypes, func(id objects.OID) error {
		if id.Type == objects.TypeAttestation {
			st.atts = append(st.atts, id)
		} else {
			st.anns = append(st.anns, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("catalog: list objects: %w", err)
	}
	sortOIDs(st.atts)
	sortOIDs(st.anns)
	return st, nil
}

// builder computes a catalog for a state, reusing what an older catalog
// (old, possibly nil) already holds.
type builder struct {
	ctx    context.Context
	src    objects.Getter
	algo   objects.Algo
	rules  []EvidenceRule
	old    *data
	oldRun map[objects.OID]*RunEntry
	oldRef map[string]objects.OID
	events map[objects.OID][]KeyedEvent
	// summ holds the event summaries read during this build (the old
	// catalog's are found by oldEvent); runEvents the event lists of the
	// runs indexed now (reused runs keep their positions in old.events),
	// each event as its number in eventIDs: runs share most of their
	// events (a 1,000-branch loop lists half a million, 3,000 distinct),
	// so a list costs 4 bytes an event, not an oid's 64.
	summ      map[objects.OID]*EventSummary
	runEvents map[objects.OID][]int32
	eventIDs  []objects.OID
	eventNum  map[objects.OID]int32
	reads     int
}

// intern returns the number of event id in b.eventIDs, adding it.
func (b *builder) intern(id objects.OID) int32 {
	if n, ok := b.eventNum[id]; ok {
		return n
	}
	n := int32(len(b.eventIDs))
	b.eventIDs = append(b.eventIDs, id)
	b.eventNum[id] = n
	return n
}

func newBuilder(ctx context.Context, src objects.Getter, algo objects.Algo, rules []EvidenceRule, old *data) *builder {
	b := &builder{ctx: ctx, src: src, algo: algo, rules: rules, old: old,
		oldRun: map[objects.OID]*RunEntry{}, oldRef: map[string]objects.OID{}, events: map[objects.OID][]KeyedEvent{},
		summ: map[objects.OID]*EventSummary{}, runEvents: map[objects.OID][]int32{}, eventNum: map[objects.OID]int32{}}
	if old != nil {
		for i := range old.runs {
			b.oldRun[old.runs[i].Run] = &old.runs[i]
		}
		for _, r := range old.refs {
			b.oldRef[r.Name] = r.ID
		}
	}
	return b
}

// build returns the catalog of st.
func (b *builder) build(st *state) (*data, error) {
	d := &data{algo: b.algo, rules: b.rules, refs: st.refs}
	targets := runTargets(st.refs)
	made := make(map[objects.OID]RunEntry)
	err := b.eachFreshRun(targets, func(run objects.OID) error {
		e, err := b.indexRun(run, st.refs)
		made[run] = e
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, run := range targets {
		if e, ok := b.oldRun[run]; ok {
			d.runs = append(d.runs, *e)
		} else {
			d.runs = append(d.runs, made[run])
		}
	}
	b.eventTable(d)
	if d.atts, err = b.attestations(st.atts); err != nil {
		return nil, err
	}
	if d.anns, err = b.annotations(st.anns); err != nil {
		return nil, err
	}
	return d, nil
}

// eachFreshRun calls fn with each run of targets the old catalog lacks,
// in the store's read order (objects.ReadOrderer), not in targets' order:
// a loop's branch runs are deltas of one another, and read by id each
// could re-apply a chain of a hundred. A build from nothing and an update
// both index runs this way, and both place them by oid afterwards, so the
// catalog does not depend on the order.
func (b *builder) eachFreshRun(targets []objects.OID, fn func(run objects.OID) error) error {
	var fresh []objects.OID
	for _, run := range targets {
		if _, ok := b.oldRun[run]; !ok {
			fresh = append(fresh, run)
		}
	}
	objects.SortForRead(b.src, fresh)
	for _, run := range fresh {
		if err := fn(run); err != nil {
			return err
		}
	}
	return nil
}

// get reads an object; absent is (nil, nil): a shallow boundary or an
// object pruned since it was listed is simply not indexed.
func (b *builder) get(id objects.OID) (*objects.Object, error) {
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	o, err := b.src.Get(b.ctx, id)
	if errors.Is(err, objects.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	b.reads++
	return o, nil
}

func (b *builder) attestations(ids []objects.OID) ([]Attestation, error) {
	old := map[objects.OID]*Attestation{}
	if b.old != nil {
		for i := range b.old.atts {
			old[b.old.atts[i].ID] = &b.old.atts[i]
		}
	}
	out := make([]Attestation, 0, len(ids))
	for _, id := range ids {
		if a, ok := old[id]; ok {
			out = append(out, *a)
			continue
		}
		o, err := b.get(id)
		if err != nil {
			return nil, err
		}
		if o != nil {
			out = append(out, extractAttestation(o))
		}
	}
	return out, nil
}

func (b *builder) annotations(ids []objects.OID) ([]Annotation, error) {
	old := map[objects.OID]Annotation{}
	if b.old != nil {
		for _, a := range b.old.anns {
			old[a.ID] = a
		}
	}
	out := make([]Annotation, 0, len(ids))
	for _, id := range ids {
		if a, ok := old[id]; ok {
			out = append(out, a)
			continue
		}
		o, err := b.get(id)
		if err != nil {
			return nil, err
		}
		if o != nil {
			out = append(out, extractAnnotation(o))
		}
	}
	return out, nil
}
