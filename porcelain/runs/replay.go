package runs

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// tine replay REF --verify: re-derive every object of a run from what is
// stored and report drift per object. It is a CI gate: a run whose every
// object still is what its name says, and still passes the SPEC's rules,
// replays to itself.
//
// The walk starts at the run object and follows links (SPEC §1.5: events,
// roots, tips, parent and causal ids, every *_blob and manifest blob), so
// it covers exactly the objects the run depends on. For each object:
//
//  1. its stored bytes are read and decoded, and the oid is re-derived
//     under the repository's hash; a store that cannot produce bytes that
//     hash to the name is "object-corrupt" (objects.Getter re-hashes);
//  2. the decoded object is encoded again and decoded from those bytes
//     (objects.DecodeEnvelopeAs), which must give the same oid: the stored
//     form is canonical and round-trips;
//  3. objects.Validate re-checks links, metrics, link existence, the run
//     graph and annotation chains ("object-invalid");
//  4. a link to an object that is not stored and not on the shallow
//     boundary (SPEC §2.7) is "missing-link".

// VerifyResult is what `tine replay --verify` reports.
type VerifyResult struct {
	// Revision and Ref say how the run was named; Run is its oid.
	Revision string `json:"revision,omitempty"`
	Ref      string `json:"ref,omitempty"`
	Run      string `json:"run"`
	// Stored is false for a run derived by REV~N, which is checked in
	// memory; its events and blobs are read from the store as usual.
	Stored bool `json:"stored"`
	// Objects counts the objects re-derived, by type in ByType; Shallow
	// counts links to shallow-boundary oids that were not followed.
	Objects int            `json:"objects"`
	ByType  map[string]int `json:"by_type"`
	Shallow int            `json:"shallow,omitempty"`
	// OK reports that nothing drifted.
	OK bool `json:"ok"`
	// Drift lists each object that failed, in walk order.
	Drift []ObjectDrift `json:"drift"`
}

// ObjectDrift is one object of a run that no longer re-derives.
type ObjectDrift struct {
	// Object is the oid; Type its type.
	Object string `json:"object"`
	Type   string `json:"type"`
	// Problem is plumbing.ProblemObjectCorrupt, ProblemObjectInvalid or
	// ProblemMissingLink, the codes fsck uses.
	Problem string `json:"problem"`
	// Reason is the SPEC reason code when there is one.
	Reason string `json:"reason,omitempty"`
	// LinkedFrom is the object whose link led here.
	LinkedFrom string `json:"linked_from,omitempty"`
	Message    string `json:"message"`
}

// VerifyRevision resolves rev with ResolveRun and verifies the run.
func VerifyRevision(ctx context.Context, r *plumbing.Repo, rev string) (*VerifyResult, error) {
	run, ref, err := ResolveRun(ctx, r, rev)
	if err != nil {
		return nil, err
	}
	shallow, err := r.Refs().ReadShallow()
	if err != nil {
		return nil, fmt.Errorf("reading the shallow file: %w", err)
	}
	set := make(map[objects.OID]bool, len(shallow))
	for _, id := range shallow {
		set[id] = true
	}
	res, err := VerifyRun(ctx, r.Objects(), run, func(id objects.OID) bool { return set[id] })
	if err != nil {
		return nil, err
	}
	res.Revision, res.Ref = rev, ref
	return res, nil
}

// VerifyRun re-derives run and every object it links, through g (see the
// comment above). isShallow reports shallow-boundary oids; it may be nil.
// Drift is reported in the result; the error is for failures to look
// (a cancelled context).
func VerifyRun(ctx context.Context, g objects.Getter, run *Run, isShallow func(objects.OID) bool) (*VerifyResult, error) {
	if isShallow == nil {
		isShallow = func(objects.OID) bool { return false }
	}
	v := &verifier{ctx: ctx, g: g, shallow: isShallow, cache: map[objects.OID]verifyEntry{}}
	res := &VerifyResult{Run: run.ID.String(), Stored: run.Stored, ByType: map[string]int{}, Drift: []ObjectDrift{}}
	type item struct{ id, from objects.OID }
	queue := []item{{id: run.ID}}
	seen := map[objects.OID]bool{run.ID: true}
	if !run.Stored {
		// A derived run exists only in memory: check it as is.
		v.cache[run.ID] = verifyEntry{obj: run.Object}
	}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		it := queue[0]
		queue = queue[1:]
		o, drift := v.check(it.id)
		if o != nil {
			res.Objects++
			res.ByType[string(o.Type)]++
		}
		if drift != nil {
			if !it.from.IsZero() {
				drift.LinkedFrom = it.from.String()
			}
			res.Drift = append(res.Drift, *drift)
		}
		if o == nil {
			continue
		}
		links, err := objects.Links(o)
		if err != nil {
			continue // reported by check as object-invalid
		}
		for _, l := range links {
			if seen[l] {
				continue
			}
			seen[l] = true
			if e := v.entry(l); e.obj == nil && e.err == nil && isShallow(l) {
				res.Shallow++
				continue
			}
			queue = append(queue, item{id: l, from: it.id})
		}
	}
	res.OK = len(res.Drift) == 0
	return res, nil
}

// verifyEntry is the outcome of reading one object: the object, or the
// read error, or neither when it is absent.
type verifyEntry struct {
	obj *objects.Object
	err error
}

// verifier reads each object once and doubles as the objects.Resolver the
// link, graph and chain checks consult.
type verifier struct {
	ctx     context.Context
	g       objects.Getter
	shallow func(objects.OID) bool
	cache   map[objects.OID]verifyEntry
}

// entry reads id through the store once.
func (v *verifier) entry(id objects.OID) verifyEntry {
	if e, ok := v.cache[id]; ok {
		return e
	}
	o, err := v.g.Get(v.ctx, id)
	var e verifyEntry
	switch {
	case errors.Is(err, objects.ErrNotFound):
	case err != nil:
		e.err = err
	default:
		e.obj = o
	}
	v.cache[id] = e
	return e
}

// Resolve implements objects.Resolver over the cache.
func (v *verifier) Resolve(id objects.OID) (*objects.Object, error) {
	e := v.entry(id)
	return e.obj, e.err
}

// Present implements objects.PresenceChecker: an object that is stored
// but corrupt still satisfies a link (the reference checks links with
// has()), so the drift is reported on the corrupt object alone.
func (v *verifier) Present(id objects.OID) (bool, error) {
	e := v.entry(id)
	return e.obj != nil || e.err != nil, nil
}

// Shallow implements objects.Resolver.
func (v *verifier) Shallow(id objects.OID) bool { return v.shallow(id) }

// check re-derives one object and returns it (nil when unreadable) and its
// drift, if any.
func (v *verifier) check(id objects.OID) (*objects.Object, *ObjectDrift) {
	drift := func(problem string, err error) *ObjectDrift {
		d := &ObjectDrift{Object: id.String(), Type: string(id.Type), Problem: problem, Message: err.Error()}
		if r, ok := objects.ReasonOf(err); ok {
			d.Reason = string(r)
		}
		return d
	}
	e := v.entry(id)
	switch {
	case e.err != nil:
		return nil, drift(plumbing.ProblemObjectCorrupt, e.err)
	case e.obj == nil:
		return nil, drift(plumbing.ProblemMissingLink, fmt.Errorf("%s is not stored and not on the shallow boundary: %w", id, objects.ErrNotFound))
	}
	o := e.obj
	again, err := objects.DecodeEnvelopeAs(id, o.Stored())
	if err != nil {
		return o, drift(plumbing.ProblemObjectCorrupt, fmt.Errorf("%s does not re-derive from its stored bytes: %w", id, err))
	}
	if again.ID != id || again.Type != id.Type {
		return o, drift(plumbing.ProblemObjectCorrupt, fmt.Errorf("%s re-derives as %s", id, again.ID))
	}
	if _, err := objects.Validate(o, v); err != nil {
		return o, drift(plumbing.ProblemObjectInvalid, err)
	}
	return o, nil
}
