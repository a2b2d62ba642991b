package index

import (
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// memberGetter reads a top-level member of a run: a parsed payload
// (objects.Value) or a body split without parsing its events
// (objects.RunBody).
type memberGetter interface {
	Get(key string) (objects.Value, bool)
}

// runView is what the catalog reads of a run object: its members and its
// event list. A canonical run body is split without parsing its events
// list (objects.SplitRunBody): the runs of a 1,000-branch loop list half a
// million events between them, and parsing each list into values cost
// most of a catalog build; a body that does not split is parsed.
type runView struct {
	id      objects.OID
	members memberGetter
	events  []objects.OID
	// wholeList: the events member is absent, null, or a list whose every
	// element is in events (the catalog holds the list log reads).
	wholeList bool
}

// getRun reads run id for the catalog; absent is (nil, nil), as get.
func (b *builder) getRun(id objects.OID) (*runView, error) {
	if err := b.ctx.Err(); err != nil {
		return nil, err
	}
	o, err := objects.GetUnparsed(b.ctx, b.src, id)
	if errors.Is(err, objects.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	b.reads++
	return viewRun(o)
}

// viewRun splits o's body when it can, else parses it.
func viewRun(o *objects.Object) (*runView, error) {
	if rb, err := objects.SplitRunBody(o.ID.Algo, o.Body); err == nil {
		ev := make([]objects.OID, rb.Len())
		for i := range ev {
			ev[i] = rb.Event(i)
		}
		return &runView{id: o.ID, members: rb, events: ev, wholeList: true}, nil
	}
	p, err := o.WithValue()
	if err != nil {
		return nil, fmt.Errorf("catalog: run %s: %w", o.ID, err)
	}
	v := &runView{id: o.ID, members: p.Value, events: runEvents(p), wholeList: true}
	if l, ok := p.Value.Get("events"); ok && l.Kind != objects.KindNull && (l.Kind != objects.KindArray || len(l.Array) != len(v.events)) {
		v.wholeList = false
	}
	return v, nil
}
