package objects

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// mapResolver resolves from a map; nothing is shallow.
type mapResolver map[OID]*Object

func (m mapResolver) Resolve(id OID) (*Object, error) { return m[id], nil }
func (m mapResolver) Shallow(OID) bool                { return false }

// genGraph builds random events and runs for the append property test.
type genGraph struct {
	t   *testing.T
	rng *rand.Rand
	res mapResolver
	n   int
}

func oidsValue(ids []OID) Value {
	vs := make([]Value, len(ids))
	for i, id := range ids {
		vs[i] = String(id.String())
	}
	return Array(vs...)
}

// event makes a new event whose parents and causal links are drawn from
// pool (a random subset each).
func (g *genGraph) event(pool []OID) *Object {
	g.n++
	pick := func(max int) []OID {
		var out []OID
		seen := map[OID]bool{}
		for range g.rng.IntN(max + 1) {
			if len(pool) == 0 {
				break
			}
			id := pool[g.rng.IntN(len(pool))]
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
		return out
	}
	members := []Member{
		{Key: "kind", Value: String(fmt.Sprintf("e%d", g.n))},
		{Key: "parent_ids", Value: oidsValue(pick(2))},
	}
	if c := pick(1); len(c) > 0 {
		members = append(members, Member{Key: "causal_ids", Value: oidsValue(c)})
	}
	o, err := NewJSONObject(SHA256, TypeEvent, 1, ObjectValue(members...))
	if err != nil {
		g.t.Fatal(err)
	}
	g.res[o.ID] = o
	return o
}

// derived returns the exact roots and tips of events (all in g.res).
func (g *genGraph) derived(events []OID) (roots, tips []OID) {
	named := map[OID]bool{}
	for _, e := range events {
		parents, _, err := eventGraphLinks(g.res[e])
		if err != nil {
			g.t.Fatal(err)
		}
		if len(parents) == 0 {
			roots = append(roots, e)
		}
		for _, p := range parents {
			named[p] = true
		}
	}
	for _, e := range events {
		if !named[e] {
			tips = append(tips, e)
		}
	}
	return roots, tips
}

func (g *genGraph) run(events, roots, tips []OID, extra ...Member) *Object {
	members := append([]Member{
		{Key: "events", Value: oidsValue(events)},
		{Key: "roots", Value: oidsValue(roots)},
		{Key: "tips", Value: oidsValue(tips)},
	}, extra...)
	o, err := NewJSONObject(SHA256, TypeRun, 1, ObjectValue(members...))
	if err != nil {
		g.t.Fatal(err)
	}
	return o
}

// mutate returns a (possibly) broken variant of the new run's lists and
// extra members, each rule of CheckRunGraph having its own way to break.
func (g *genGraph) mutate(events, roots, tips []OID, foreign OID) ([]OID, []OID, []Member) {
	var extra []Member
	pickEvent := func() OID { return events[g.rng.IntN(len(events))] }
	switch g.rng.IntN(12) {
	case 0: // a tip too many (an event that is not a tip, or the same tip twice)
		tips = append(append([]OID{}, tips...), pickEvent())
	case 1: // a tip missing
		if len(tips) > 0 {
			tips = tips[1:]
		}
	case 2: // a root too many
		roots = append(append([]OID{}, roots...), pickEvent())
	case 3: // a root missing
		if len(roots) > 0 {
			roots = roots[:len(roots)-1]
		}
	case 4:
		extra = append(extra, Member{Key: "status", Value: String([]string{"running", "paused", "done", "failed"}[g.rng.IntN(4)])})
	case 6: // manifests: a stored blob, an absent one, or not an object
		blob := NewBlob(SHA256, []byte(fmt.Sprint("code", g.n)))
		switch g.rng.IntN(3) {
		case 0:
			g.res[blob.ID] = blob
			extra = append(extra, Member{Key: "manifests", Value: ObjectValue(Member{Key: "code", Value: String(blob.ID.String())})})
		case 1:
			extra = append(extra, Member{Key: "manifests", Value: ObjectValue(Member{Key: "code", Value: String(blob.ID.String())})})
		default:
			extra = append(extra, Member{Key: "manifests", Value: String("code")})
		}
	case 7: // a *_blob member naming an absent blob, or an event
		target := NewBlob(SHA256, []byte(fmt.Sprint("in", g.n))).ID
		if g.rng.IntN(2) == 0 {
			target = pickEvent()
		}
		extra = append(extra, Member{Key: "input_blob", Value: String(target.String())})
	case 8: // a root outside the run
		roots = append(append([]OID{}, roots...), foreign)
	case 5:
		target := pickEvent()
		if g.rng.IntN(2) == 0 {
			target = foreign
		}
		extra = append(extra, Member{Key: "legacy_refs", Value: ObjectValue(Member{Key: "step", Value: String(target.String())})})
	}
	return roots, tips, extra
}

// TestCheckRunAppendMatchesFull is the property that makes the incremental
// check safe: on randomized complete base runs and random appends (parents
// outside the run, out-of-order events, wrong roots, tips, status or
// legacy_refs), CheckRunAppend and ValidateAppend give exactly the verdict
// (nil or the same reason) of CheckRunGraph and Validate, which read every
// event.
func TestCheckRunAppendMatchesFull(t *testing.T) {
	var accepted, refused int
	refusedBy := map[Reason]bool{}
	for seed := range uint64(3000) {
		g := &genGraph{t: t, rng: rand.New(rand.NewPCG(seed, 13)), res: mapResolver{}}
		var baseEvents []OID
		for range g.rng.IntN(12) {
			baseEvents = append(baseEvents, g.event(baseEvents).ID)
		}
		roots, tips := g.derived(baseEvents)
		base := g.run(baseEvents, roots, tips)
		if err := CheckRunGraph(base, g.res); err != nil {
			t.Fatalf("seed %d: base: %v", seed, err)
		}
		foreign := g.event(nil).ID // an event outside every run
		pool := append([]OID{}, baseEvents...)
		if g.rng.IntN(8) == 0 {
			pool = append(pool, foreign) // a parent outside the run
		}
		var added []*Object
		for range 1 + g.rng.IntN(4) {
			e := g.event(pool)
			added = append(added, e)
			pool = append(pool, e.ID)
		}
		if len(added) > 1 && g.rng.IntN(6) == 0 { // a child before its parent, maybe
			i := g.rng.IntN(len(added) - 1)
			added[i], added[i+1] = added[i+1], added[i]
		}
		events := append([]OID{}, baseEvents...)
		for _, e := range added {
			events = append(events, e.ID)
		}
		if len(baseEvents) > 0 && g.rng.IntN(12) == 0 { // an old event again
			events = append(events, baseEvents[g.rng.IntN(len(baseEvents))])
		}
		if g.rng.IntN(12) == 0 { // an appended event twice
			events = append(events, added[0].ID)
		}
		roots, tips = g.derived(events)
		roots, tips, extra := g.mutate(events, roots, tips, foreign)
		run := g.run(events, roots, tips, extra...)

		full := CheckRunGraph(run, g.res)
		inc := CheckRunAppend(run, base, g.res)
		sameVerdict(t, seed, "CheckRunAppend", full, inc)
		_, vfull := Validate(run, g.res)
		_, vinc := ValidateAppend(run, base, g.res)
		sameVerdict(t, seed, "ValidateAppend", vfull, vinc)
		_, vbytes := validateAppendBytes(run, base, g.res)
		if errors.Is(vbytes, errNoByteCheck) {
			t.Fatalf("seed %d: the byte check declined an append", seed)
		}
		sameVerdict(t, seed, "validateAppendBytes", vfull, vbytes)
		if reason, ok := ReasonOf(vbytes); ok {
			refusedBy[reason] = true
		} else if errors.Is(vbytes, ErrNotAppend) {
			refusedBy["not-append"] = true
		}
		_, vparsed := validateAppendParsed(run, base, g.res)
		sameVerdict(t, seed, "validateAppendParsed", vfull, vparsed)
		if full == nil {
			accepted++
		} else {
			refused++
		}
	}
	// The generator must exercise both sides, or the property says nothing.
	if accepted < 300 || refused < 300 {
		t.Fatalf("generator is lopsided: %d accepted, %d refused", accepted, refused)
	}
	// Each rule the byte check keeps refuses some append.
	for _, r := range []Reason{ReasonGraphTipsMismatch, ReasonGraphRootsMismatch, ReasonGraphStatusInvalid,
		ReasonGraphLegacyRefsInvalid, ReasonGraphParentOutsideGraph, ReasonGraphOrderNotTopological,
		ReasonLinkRunEventsInvalid, ReasonLinkRunRootsTipsNotSubset, ReasonLinkRunManifestsNotObject,
		ReasonLinkRunBlobNotBlob, ReasonLinkMissingObject} {
		if !refusedBy[r] {
			t.Errorf("no generated append was refused with %s", r)
		}
	}
}

func sameVerdict(t *testing.T, seed uint64, what string, full, inc error) {
	t.Helper()
	fr, _ := ReasonOf(full)
	ir, _ := ReasonOf(inc)
	if (full == nil) != (inc == nil) || fr != ir {
		t.Fatalf("seed %d: %s: full check says %v, incremental says %v", seed, what, full, inc)
	}
}

// TestCheckRunAppendNotAppend: a run whose events do not extend the base's
// is left to the full check.
func TestCheckRunAppendNotAppend(t *testing.T) {
	g := &genGraph{t: t, rng: rand.New(rand.NewPCG(1, 2)), res: mapResolver{}}
	a := g.event(nil)
	b := g.event([]OID{a.ID})
	c := g.event(nil)
	base := g.run([]OID{a.ID, b.ID}, []OID{a.ID}, []OID{b.ID})
	for name, run := range map[string]*Object{
		"reordered": g.run([]OID{b.ID, a.ID, c.ID}, nil, nil),
		"shorter":   g.run([]OID{a.ID, c.ID}, nil, nil),
	} {
		if err := CheckRunAppend(run, base, g.res); !errors.Is(err, ErrNotAppend) {
			t.Errorf("%s: got %v, want ErrNotAppend", name, err)
		}
	}
	absent := OID{Type: TypeEvent, Algo: SHA256}
	absent.Digest[0] = 1
	if err := CheckRunAppend(g.run([]OID{a.ID, b.ID, absent}, nil, nil), base, g.res); !errors.Is(err, ErrNotAppend) {
		t.Errorf("absent appended event: got %v, want ErrNotAppend", err)
	}
}
