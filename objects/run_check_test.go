package objects

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// shallowResolver is a mapResolver whose listed oids are on the shallow
// boundary.
type shallowResolver struct {
	mapResolver
	shallow map[OID]bool
}

func (s shallowResolver) Shallow(id OID) bool { return s.shallow[id] }

// TestRunCheckMatchesValidate: on random runs, broken in each of the ways
// the graph and link rules refuse, with some events shallow or missing,
// NewRunCheck then Validate gives exactly Validate's error (text and
// reason), and one table serves every run. The run read unparsed (its
// events list taken from the bytes by Links and the graph rules) gets
// the same links, RunCheck and Validate, errors alike.
func TestRunCheckMatchesValidate(t *testing.T) {
	var table OIDTable
	var accepted, refused int
	reasons := map[Reason]int{}
	for seed := range uint64(2000) {
		g := &genGraph{t: t, rng: rand.New(rand.NewPCG(seed, 29)), res: mapResolver{}}
		var events []OID
		for range 1 + g.rng.IntN(14) {
			events = append(events, g.event(events).ID)
		}
		if g.rng.IntN(10) == 0 && len(events) > 1 { // out of order
			i := g.rng.IntN(len(events) - 1)
			events[i], events[i+1] = events[i+1], events[i]
		}
		roots, tips := g.derived(events)
		if g.rng.IntN(12) == 0 { // an event listed twice
			events = append(events, events[g.rng.IntN(len(events))])
		}
		foreign := g.event(nil).ID
		roots, tips, extra := g.mutate(events, roots, tips, foreign)
		if len(extra) == 0 && g.rng.IntN(10) == 0 {
			extra = append(extra, Member{Key: "status", Value: Int(3)})
		}
		run := g.run(events, roots, tips, extra...)
		r := shallowResolver{mapResolver: g.res, shallow: map[OID]bool{}}
		switch g.rng.IntN(6) {
		case 0: // an event on the shallow boundary: the run is incomplete
			victim := events[g.rng.IntN(len(events))]
			delete(r.mapResolver, victim)
			r.shallow[victim] = true
		case 1: // an event missing altogether
			delete(r.mapResolver, events[g.rng.IntN(len(events))])
		}
		_, want := Validate(run, r)
		c, err := NewRunCheck(run, &table)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got := c.Validate(&table, r)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("seed %d: Validate says %v, RunCheck says %v", seed, want, got)
		}
		// The same run read without its body parsed: the same links, the
		// same verdict.
		unparsed, err := DecodeEnvelopeUnparsedAs(run.ID, run.Stored())
		if err != nil {
			t.Fatal(err)
		}
		links, lerr := Links(run)
		ulinks, uerr := Links(unparsed)
		if fmt.Sprint(lerr) != fmt.Sprint(uerr) || fmt.Sprint(links) != fmt.Sprint(ulinks) {
			t.Fatalf("seed %d: Links says %v, %v; unparsed %v, %v", seed, links, lerr, ulinks, uerr)
		}
		if uc, err := NewRunCheck(unparsed, &table); err != nil || fmt.Sprint(uc.Validate(&table, r)) != fmt.Sprint(want) {
			t.Fatalf("seed %d: RunCheck of the unparsed run: %v", seed, err)
		}
		if _, uerr := Validate(unparsed, r); fmt.Sprint(uerr) != fmt.Sprint(want) {
			t.Fatalf("seed %d: Validate says %v, of the unparsed run %v", seed, want, uerr)
		}
		wr, _ := ReasonOf(want)
		gr, _ := ReasonOf(got)
		if wr != gr {
			t.Fatalf("seed %d: reasons %q and %q", seed, wr, gr)
		}
		reasons[wr]++
		if c.split {
			reasons["split"]++
		}
		if want == nil {
			accepted++
		} else {
			refused++
		}
	}
	// Each rule refuses some run, and both ways of keeping links occur.
	for _, r := range []Reason{ReasonLinkRunEventsInvalid, ReasonGraphLegacyRefsInvalid, ReasonGraphOrderNotTopological, ReasonGraphRootsMismatch,
		ReasonGraphStatusInvalid, ReasonGraphTipsMismatch, ReasonLinkMissingObject, ReasonLinkRunBlobNotBlob,
		ReasonLinkRunManifestsNotObject, ReasonLinkRunRootsTipsInvalid, ReasonLinkRunRootsTipsNotSubset} {
		if reasons[r] == 0 {
			t.Errorf("no generated run was refused with %s", r)
		}
	}
	if reasons["split"] == 0 || reasons["split"] == accepted+refused {
		t.Errorf("%d of %d runs kept their links split", reasons["split"], accepted+refused)
	}
	if accepted < 200 || refused < 200 {
		t.Fatalf("generator is lopsided: %d accepted, %d refused", accepted, refused)
	}
}

// TestRunCheckRefusesOtherTypes: only runs have a RunCheck.
func TestRunCheckRefusesOtherTypes(t *testing.T) {
	g := &genGraph{t: t, rng: rand.New(rand.NewPCG(1, 1)), res: mapResolver{}}
	if _, err := NewRunCheck(g.event(nil), &OIDTable{}); err == nil {
		t.Fatal("an event was accepted")
	}
}

// TestOIDTable numbers each distinct oid once, in order of first sight.
func TestOIDTable(t *testing.T) {
	var table OIDTable
	g := &genGraph{t: t, rng: rand.New(rand.NewPCG(1, 1)), res: mapResolver{}}
	a, b := g.event(nil).ID, g.event(nil).ID
	ns, err := table.Numbers(nil, []OID{a, b, a})
	if err != nil || fmt.Sprint(ns) != "[0 1 0]" || table.Len() != 2 {
		t.Fatalf("numbers %v, len %d, err %v", ns, table.Len(), err)
	}
	if ids := table.OIDs(nil, []uint32{1, 0}); len(ids) != 2 || ids[0] != b || ids[1] != a {
		t.Fatalf("oids %v", ids)
	}
}
