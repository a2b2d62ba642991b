package runs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// head is the state of a ref a write builds on. The run the ref names, when
// it exists, is held as its object, read with its oid verified but its body
// not parsed, and that body split (objects.SplitRunBody): an append reads
// the status, roots, tips and other small members, looks up the few events
// it names in the list's bytes, and writes the next run by splicing
// (RunBody.Append), so it never builds a value or an oid per event of a
// long run.
type head struct {
	ref    string
	expect refs.Expect
	obj    *objects.Object  // nil when the ref does not exist
	body   *objects.RunBody // obj's body, split
	status string
	roots  []objects.OID
	tips   []objects.OID
}

// readHead reads ref and, when it exists, its run object, checked as
// checkBase checks it: the run object and its tips, never the older events
// (an append needs only the lists and the tips it links to).
func readHead(ctx context.Context, r *plumbing.Repo, ref string) (*head, error) {
	id, err := r.Refs().Read(ctx, ref)
	if errors.Is(err, refs.ErrNotFound) {
		return &head{ref: ref, expect: refs.ExpectAbsent}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ref %s: %w", ref, err)
	}
	if id.Type != objects.TypeRun {
		return nil, fmt.Errorf("ref %s: %s: %w", ref, id, ErrNotRun)
	}
	o, err := objects.GetUnparsed(ctx, r.Objects(), id)
	if err != nil {
		return nil, fmt.Errorf("ref %s: run %s: %w", ref, id, err)
	}
	b, err := objects.SplitRunBody(o.ID.Algo, o.Body)
	if err != nil {
		return nil, fmt.Errorf("ref %s: %w", ref, unsplitRun(o, err))
	}
	h := &head{ref: ref, expect: refs.ExpectValue(id), obj: o, body: b, status: StatusRunning}
	if s, ok := b.Get("status"); ok && s.Kind == objects.KindString {
		h.status = s.Str
	}
	if err := checkBase(ctx, r.Objects(), h); err != nil {
		return nil, err
	}
	return h, nil
}

// unsplitRun says why a run body SplitRunBody refused is no run to append
// to: the decode's or the link rules' error, as a full read reports them.
// A valid run always splits (its events list is a list of event oids, or
// falsy), so the split's own error is the last resort.
func unsplitRun(o *objects.Object, splitErr error) error {
	p, err := o.WithValue()
	if err != nil {
		return err
	}
	if _, err := objects.Links(p); err != nil {
		return err
	}
	return fmt.Errorf("run %s: %w", o.ID, splitErr)
}

// exists reports whether the ref names a run.
func (h *head) exists() bool { return h.obj != nil }

// id returns the run's oid, the zero oid for a new run.
func (h *head) id() objects.OID {
	if h.obj == nil {
		return objects.OID{}
	}
	return h.obj.ID
}

// holds reports whether the run lists event id.
func (h *head) holds(id objects.OID) bool {
	return h.body != nil && h.body.Index(id) >= 0
}

// member returns the run's top-level member key (never events), the zero
// Value when absent.
func (h *head) member(key string) objects.Value {
	if h.body == nil {
		return objects.Value{}
	}
	v, _ := h.body.Get(key)
	return v
}

// checkAppendable refuses to extend a run that is not running: a paused,
// completed or failed run is resumed first, explicitly.
func (h *head) checkAppendable() error {
	if h.exists() && h.status != StatusRunning {
		return fmt.Errorf("run %s at %s is %s: %w; run tine resume %s first", h.id(), h.ref, h.status, ErrNotRunning, h.ref)
	}
	return nil
}

// appendedRun builds the run that is h's run plus newEvents (each given
// with its parent_ids), in order, with status. A new run gets created_at
// from now. extra members (the manifests of a recorded command's code
// state) replace the base run's members of the same key. An existing
// run's next object is spliced from its body (objects.RunBody.Append:
// byte for byte the full encoding of the derived payload, costing the new
// members, not the run's length); a new run is encoded in full.
func (h *head) appendedRun(a objects.Algo, newEvents []*Event, status string, now time.Time, extra ...objects.Member) (*objects.Object, error) {
	roots := slices.Clone(h.roots)
	tips := slices.Clone(h.tips)
	added := make([]objects.OID, 0, len(newEvents))
	for _, e := range newEvents {
		added = append(added, e.ID)
		if len(e.Parents) == 0 {
			roots = append(roots, e.ID)
		}
		tips = removeOIDs(tips, e.Parents)
		tips = append(tips, e.ID)
	}
	if status == "" {
		status = StatusRunning
	}
	set := []objects.Member{
		{Key: "roots", Value: OIDValues(roots)},
		{Key: "tips", Value: OIDValues(tips)},
		{Key: "status", Value: objects.String(status)},
	}
	set = append(set, extra...)
	var o *objects.Object
	var err error
	if h.exists() {
		o, err = h.body.Append(added, set, legacyFields)
	} else {
		set = append(set,
			objects.Member{Key: "created_at", Value: UnixSeconds(now)},
			objects.Member{Key: "events", Value: OIDValues(added)})
		o, err = objects.NewJSONObject(a, objects.TypeRun, 1, derivePayload(objects.Value{}, set, legacyFields))
	}
	if err != nil {
		return nil, fmt.Errorf("build run for %s: %w", h.ref, err)
	}
	return o, nil
}
