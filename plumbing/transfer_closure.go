package plumbing

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// NoDepth is the TransferOptions.Depth of an unlimited walk.
const NoDepth = -1

// TransferSource is what TransferClosure walks: a store that can also name
// the associations of an object (the attestations and annotations whose
// target_id is it, which nothing links to) and its own shallow boundary.
// RepoTransferSource builds one over a repository and its catalog.
type TransferSource interface {
	objects.Getter
	// Has reports whether the source stores id.
	Has(ctx context.Context, id objects.OID) (bool, error)
	// Associations returns the attestations and annotations targeting id.
	Associations(ctx context.Context, id objects.OID) ([]objects.OID, error)
	// Shallow reports whether id is on the source's shallow boundary (SPEC
	// §2.7): absent by design, so a link to it ends the walk.
	Shallow(id objects.OID) bool
}

// TransferOptions configures TransferClosure.
type TransferOptions struct {
	// Wants are the roots, usually run oids (ref values). Each must be
	// stored in the source.
	Wants []objects.OID
	// Depth limits the walk to Depth hops into events, OpenTine's rule
	// (opentine-remote §7): a run's events are dropped unless they are
	// tips; tips are hop 1; each parent generation one more hop; links to
	// blobs, runs, attestations and annotations are always followed. A
	// want that is an event is hop 1 itself, so deepening from a shallow
	// boundary by N adds N generations. NoDepth walks everything.
	Depth int
	// Has reports whether the receiver already holds an object: such an
	// object is neither sent nor walked through (the receiver holds its
	// closure, up to its own shallow boundary), except that a wanted run
	// is walked through, and the associations of a run or event it holds
	// are still looked up where the walk reaches it from a run (every
	// event a walked run lists that is within the depth), so a new
	// evaluation of a run the receiver has, or a new annotation of one of
	// its events, travels. Nil means the receiver holds nothing.
	Has func(ctx context.Context, id objects.OID) (bool, error)
	// NoAssociations leaves attestations and annotations out.
	NoAssociations bool
}

// TransferSet is the result of TransferClosure.
type TransferSet struct {
	// IDs are the objects to send, link targets before the objects linking
	// to them, so every prefix is link-closed over the receiver's store:
	// it can be cut into packs of any size and installed pack by pack.
	IDs []objects.OID
	// Boundary lists the links of IDs that are neither in IDs nor held by
	// the receiver (cut by Depth, or on the source's shallow boundary),
	// sorted: exactly a TINEPACK3 frame's shallow list, and what the
	// receiver adds to its shallow file.
	Boundary []objects.OID
	// Runs are the runs in IDs, in walk order.
	Runs []objects.OID
	// Associations counts the attestations and annotations in IDs.
	Associations int
	// cache holds the objects read by the walk other than blobs and
	// runs: a run is read again when it is sent (a loop's runs are
	// stored as deltas many times smaller than their bodies, which a
	// walk through all of them would otherwise keep at once).
	cache map[objects.OID]*objects.Object
	// links holds the links the walk parsed, by included oid (blobs
	// with none).
	links *transferLinks
}

// Links returns the links of id as the walk parsed them and true, or
// false for an oid the walk did not include: a transport framing the set
// takes each object's links from here instead of parsing them again.
func (s *TransferSet) Links(id objects.OID) ([]objects.OID, bool) {
	if s.links == nil {
		return nil, false
	}
	return s.links.get(id)
}

// Object returns id from the walk's cache, or reads it through g (blobs
// and runs are not kept: blobs have no links and may be large, and runs
// together are most of a history's bytes).
func (s *TransferSet) Object(ctx context.Context, g objects.Getter, id objects.OID) (*objects.Object, error) {
	if o := s.cache[id]; o != nil {
		return o, nil
	}
	return g.Get(ctx, id)
}

// TransferClosure computes what a push, fetch or bundle of opt.Wants
// carries: the link closure of the wants (SPEC §1.5 links) plus their
// associations — every attestation and annotation targeting a run or an
// event of the closure, with their own links (annotation chains through
// previous_id, evidence) — minus what the receiver holds (opt.Has), cut at
// opt.Depth. The associations of the events a walked run lists are looked
// up even when the receiver holds the event, or the depth cuts an event it
// holds: a note made on an event after it travelled travels too. A link to an object the source lacks is allowed only on the
// source's shallow boundary; anything else is an error naming the object
// (link.missing-object).
func TransferClosure(ctx context.Context, src TransferSource, opt TransferOptions) (*TransferSet, error) {
	w := &transferWalk{ctx: ctx, src: src, opt: opt, best: map[objects.OID]int{}, listed: map[objects.OID]bool{},
		had: map[objects.OID]bool{}, links: newTransferLinks(),
		set: &TransferSet{cache: map[objects.OID]*objects.Object{}}}
	for _, id := range opt.Wants {
		hop := 0
		if id.Type == objects.TypeEvent {
			hop = 1
		}
		w.visit(id, hop, true)
	}
	for n := 0; n < len(w.queue); n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := w.expand(w.queue[n]); err != nil {
			return nil, err
		}
	}
	return w.finish()
}

// transferItem is one queued oid and the hop count it was reached at.
type transferItem struct {
	id   objects.OID
	hop  int
	root bool
	// ofRun marks an event reached as a link of a walked run: held by
	// the receiver, it is not walked, but its associations are looked up.
	ofRun bool
	// assocOf is the run or event whose associations the source said
	// the item is (zero when reached by a link): checked when read.
	assocOf objects.OID
}

// transferWalk is the state of one TransferClosure.
type transferWalk struct {
	ctx      context.Context
	src      TransferSource
	opt      TransferOptions
	queue    []transferItem
	best     map[objects.OID]int
	listed   map[objects.OID]bool // events queued as a run's link
	had      map[objects.OID]bool
	included []objects.OID
	links    *transferLinks
	set      *TransferSet
}

// visit queues id unless it was already reached at hop or less (reaching
// it again at a smaller hop re-expands it: its links may now fit).
func (w *transferWalk) visit(id objects.OID, hop int, root bool) {
	w.enqueue(transferItem{id: id, hop: hop, root: root})
}

// enqueue is visit for an item with its marks set. An event first
// reached another way (an evidence link) is queued once more when a run
// lists it, at its best hop, so that its associations are looked up even
// if the receiver holds it.
func (w *transferWalk) enqueue(it transferItem) {
	if h, ok := w.best[it.id]; ok && h <= it.hop {
		if !it.ofRun || w.listed[it.id] {
			return
		}
		it.hop = h
	} else {
		w.best[it.id] = it.hop
	}
	if it.ofRun {
		w.listed[it.id] = true
	}
	w.queue = append(w.queue, it)
}

// receiverHas asks opt.Has once per oid.
func (w *transferWalk) receiverHas(id objects.OID) (bool, error) {
	if w.opt.Has == nil {
		return false, nil
	}
	if v, ok := w.had[id]; ok {
		return v, nil
	}
	v, err := w.opt.Has(w.ctx, id)
	if err != nil {
		return false, fmt.Errorf("transfer closure: receiver %s: %w", id, err)
	}
	w.had[id] = v
	return v, nil
}

// expand includes one queued object and queues what it leads to.
func (w *transferWalk) expand(it transferItem) error {
	had, err := w.receiverHas(it.id)
	if err != nil {
		return err
	}
	// A held object is not sent, and its closure is held too up to the
	// receiver's own shallow boundary, so the walk stops there; except at
	// a root, which is walked through (not sent): a run fetched before
	// with a smaller depth, or whose associations grew, still yields its
	// missing events and new associations.
	if had && (!it.root || it.id.Type == objects.TypeBlob) {
		if it.ofRun {
			// Nothing links to an association, so holding the event
			// says nothing about holding those added since.
			return w.associations(it.id, it.hop)
		}
		return nil
	}
	seen := w.links.has(it.id)
	if it.id.Type == objects.TypeBlob {
		return w.includeBlob(it, seen)
	}
	o, err := w.source(it)
	if err != nil || o == nil {
		return err
	}
	if !it.assocOf.IsZero() {
		if err := checkAssociation(o, it.assocOf); err != nil {
			return err
		}
	}
	links, err := objects.Links(o)
	if err != nil {
		return fmt.Errorf("transfer closure: %w", err)
	}
	if !seen && !had {
		if err := w.links.put(it.id, links); err != nil {
			return fmt.Errorf("transfer closure: %w", err)
		}
		if o.Type != objects.TypeRun {
			w.set.cache[it.id] = o
		}
		w.included = append(w.included, it.id)
	}
	var tips map[objects.OID]bool
	if o.Type == objects.TypeRun && w.opt.Depth != NoDepth {
		if tips, err = runTips(o); err != nil {
			return err
		}
	}
	for _, l := range links {
		hop := it.hop
		if l.Type == objects.TypeEvent {
			hop = it.hop + 1
			// Depth set: a run's non-tip events are cut, and so is any
			// event past the depth; but one the receiver holds still
			// gets the associations made since (see heldAssociations).
			if (tips != nil && !tips[l]) || (w.opt.Depth != NoDepth && hop > w.opt.Depth) {
				if o.Type == objects.TypeRun {
					if err := w.heldAssociations(l, hop); err != nil {
						return err
					}
				}
				continue
			}
		}
		w.enqueue(transferItem{id: l, hop: hop, ofRun: o.Type == objects.TypeRun && l.Type == objects.TypeEvent})
	}
	if o.Type == objects.TypeRun || o.Type == objects.TypeEvent {
		return w.associations(it.id, it.hop)
	}
	return nil
}

// includeBlob checks a blob is stored (or a source boundary) and includes it.
func (w *transferWalk) includeBlob(it transferItem, seen bool) error {
	if seen {
		return nil
	}
	ok, err := w.src.Has(w.ctx, it.id)
	if err != nil {
		return fmt.Errorf("transfer closure: %s: %w", it.id, err)
	}
	if !ok {
		_, err := w.source(it)
		return err
	}
	w.links.m[it.id] = nil
	w.included = append(w.included, it.id)
	return nil
}

// source reads a queued object; a source-shallow link is (nil, nil).
func (w *transferWalk) source(it transferItem) (*objects.Object, error) {
	if o := w.set.cache[it.id]; o != nil {
		return o, nil
	}
	get := w.src.Get
	if it.id.Type == objects.TypeRun {
		// A run is read unparsed: its links are taken from its body's
		// bytes (objects.Links), and it is read again, parsed, when it
		// is sent.
		get = func(ctx context.Context, id objects.OID) (*objects.Object, error) {
			return objects.GetUnparsed(ctx, w.src, id)
		}
	}
	o, err := get(w.ctx, it.id)
	if errors.Is(err, objects.ErrNotFound) {
		if !it.root && w.src.Shallow(it.id) {
			return nil, nil
		}
		if it.root {
			return nil, fmt.Errorf("transfer closure: %s is not stored: %w", it.id, err)
		}
		return nil, fmt.Errorf("%w: %w", objects.Errorf(objects.ReasonLinkMissingObject, "transfer closure: linked object %s is missing", it.id), err)
	}
	if err != nil {
		return nil, fmt.Errorf("transfer closure: %w", err)
	}
	return o, nil
}

// associations queues the attestations and annotations targeting id.
func (w *transferWalk) associations(id objects.OID, hop int) error {
	if w.opt.NoAssociations {
		return nil
	}
	ids, err := w.src.Associations(w.ctx, id)
	if err != nil {
		return fmt.Errorf("transfer closure: associations of %s: %w", id, err)
	}
	for _, a := range ids {
		w.enqueue(transferItem{id: a, hop: hop, assocOf: id})
	}
	return nil
}

// checkAssociation refuses an object the source named as an association
// of target (its catalog, a derived file of the repository walked) that
// is no attestation or annotation with that target_id: otherwise a
// damaged or crafted catalog would add any object it names, and what it
// links to, to a push or fetch.
func checkAssociation(o *objects.Object, target objects.OID) error {
	named := ""
	if o.Type == objects.TypeAttestation || o.Type == objects.TypeAnnotation {
		p, err := o.WithValue()
		if err != nil {
			return fmt.Errorf("transfer closure: %w", err)
		}
		if v, ok := p.Value.Get("target_id"); ok && v.Kind == objects.KindString {
			if id, err := objects.ParseOIDFor(target.Algo, v.Str); err == nil && id == target {
				return nil
			}
			named = fmt.Sprintf(", but its target_id is %.80q", v.Str)
		}
	}
	return fmt.Errorf("transfer closure: the catalog lists %s as an attestation or annotation of %s%s: the derived catalog of the repository walked is damaged (tine index rebuild there rebuilds it)", o.ID, target, named)
}

// heldAssociations queues the associations of an event a walked run lists
// but the depth cuts, when the receiver holds that event: the depth
// bounds the history that travels, not what is noted on history the
// receiver has. (A full fetch over HTTP walks in depth windows, so this
// is how a note on an older event of a run the receiver holds travels
// there.) The receiver is asked only about events that have some.
func (w *transferWalk) heldAssociations(id objects.OID, hop int) error {
	if w.opt.NoAssociations || w.opt.Has == nil {
		return nil
	}
	ids, err := w.src.Associations(w.ctx, id)
	if err != nil || len(ids) == 0 {
		if err != nil {
			return fmt.Errorf("transfer closure: associations of %s: %w", id, err)
		}
		return nil
	}
	had, err := w.receiverHas(id)
	if err != nil || !had {
		return err
	}
	for _, a := range ids {
		w.enqueue(transferItem{id: a, hop: hop, assocOf: id})
	}
	return nil
}
