package remote

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// Scope is what a fetch asked for, for a transport whose sender chooses
// the objects (the HTTP server walks the closure; the file and S3
// transports walk it here, so they need none): the link closure of the
// wants plus every attestation and annotation whose target_id is a run or
// an event of it, with their own links (annotation chains, evidence).
// Admit refuses a reply carrying anything else, before the sink stores
// any of it, so a faulty or hostile server cannot fill the repository
// with objects nobody asked for.
//
// The closure is taken without its depth: a server that sends more of the
// wanted runs' own history than a depth asked for adds nothing foreign,
// and whether an event is within the depth depends on objects the
// receiver already holds. What the receiver holds (the haves) may be left
// out of a reply or sent again; either is within the scope.
//
// Admit follows links through the replies' objects, whose links the
// transport parses anyway (LinkMemo): an honest reply costs a few map
// operations per object and one per link, nothing is read. Only when an
// object is not reached that way does it read, from the receiving
// repository, the objects of the closure a reply left out because the
// receiver holds them (a wanted run it has, on whose event a note was
// made since), until every object is reached or nothing is left to read.
type Scope struct {
	local objects.Getter
	// state knows the ids in the scope (the wants, the links of reached
	// objects, the associations of reached runs and events), and the
	// objects of the reply being admitted, by digest: a digest names one
	// object, and the mark keeps its type, so an id of another type with
	// the same digest (which no object can have) is never taken for it.
	state map[[32]byte]scopeMark
	// pending are reached ids not expanded: not in a reply (yet), perhaps
	// held by the receiver.
	pending []objects.OID
}

// scopeMark is what a Scope knows of a digest: flags, the type's code
// (typeCodes) and, for an object of the reply being admitted, its
// position in it.
type scopeMark uint64

const (
	// markReached: the id is in the scope.
	markReached scopeMark = 1 << iota
	// markExpanded: its links are in the scope too (a blob has none).
	markExpanded
	// markLooked: it was looked for in the receiving repository.
	markLooked
	// markInReply: an object of the reply being admitted, at markPos.
	markInReply
	markTypeShift = 4 // 3 bits of type code
	markPosShift  = 8
)

// typeCodes numbers the object types for scopeMark (0: none).
var typeCodes = map[objects.Type]scopeMark{objects.TypeBlob: 1, objects.TypeEvent: 2, objects.TypeRun: 3,
	objects.TypeAttestation: 4, objects.TypeAnnotation: 5}

// of reports whether m describes id's type.
func (m scopeMark) of(id objects.OID) bool {
	return m>>markTypeShift&7 == typeCodes[id.Type]
}

// newMark is the mark of id with flags.
func newMark(id objects.OID, flags scopeMark) scopeMark {
	return flags | typeCodes[id.Type]<<markTypeShift
}

// NewScope returns the scope of a fetch of wants; local reads what the
// receiving repository stores (nil: nothing is read there).
func NewScope(wants []objects.OID, local objects.Getter) *Scope {
	s := &Scope{local: local, state: make(map[[32]byte]scopeMark, len(wants))}
	for _, id := range wants {
		if _, ok := s.state[id.Digest]; !ok {
			s.state[id.Digest] = newMark(id, markReached)
			s.pending = append(s.pending, id)
		}
	}
	return s
}

// scopeReply is one Admit's view of a reply.
type scopeReply struct {
	s     *Scope
	objs  []*objects.Object
	links [][]objects.OID
	notes map[objects.OID][]int32 // run or event → its associations in the reply
	queue []int32                 // positions of reached reply objects to expand
	held  []objects.OID           // reached ids outside the reply, to read from local
	memo  LinkMemo
	// unreached counts the reply's objects not reached yet.
	unreached int
}

// Admit checks that every object of objs, one reply of the fetch, is in
// the scope, and remembers what they reach for the replies after it. An
// object outside it fails the reply, naming the object (ErrNotAsked).
// memo parses each object's links once per transfer.
func (s *Scope) Admit(ctx context.Context, objs []*objects.Object, memo LinkMemo) error {
	if memo == nil {
		memo = LinkMemo{}
	}
	if len(objs) > len(s.state) {
		// A reply reaches about as many ids again as it holds (its
		// boundary): size the map once rather than grow it step by step.
		grown := make(map[[32]byte]scopeMark, len(s.state)+2*len(objs))
		for d, m := range s.state {
			grown[d] = m
		}
		s.state = grown
	}
	rp := &scopeReply{s: s, objs: objs, links: make([][]objects.OID, len(objs)), memo: memo}
	for i, o := range objs {
		links, err := memo.Links(o)
		if err != nil {
			return fmt.Errorf("received %w", err)
		}
		rp.links[i] = links
		m, known := s.state[o.ID.Digest]
		switch {
		case known && !m.of(o.ID):
			rp.unreached++ // another id's digest: never reached
		case !known || m&markReached == 0:
			s.state[o.ID.Digest] = newMark(o.ID, markInReply|scopeMark(i)<<markPosShift)
			rp.unreached++
		case m&markExpanded == 0:
			// Reached by the wants or an earlier reply.
			s.state[o.ID.Digest] = m | markExpanded
			rp.queue = append(rp.queue, int32(i))
		}
		if err := rp.note(o, i); err != nil {
			return err
		}
	}
	for target, at := range rp.notes {
		if m := s.state[target.Digest]; m&markReached != 0 && m.of(target) {
			for _, i := range at {
				rp.reach(objs[i].ID)
			}
		}
	}
	if err := rp.drain(ctx, false); err != nil {
		return err
	}
	if rp.unreached > 0 {
		// Something is reached only through objects the receiver holds.
		rp.held, s.pending = append(s.pending, rp.held...), nil
		if err := rp.drain(ctx, true); err != nil {
			return err
		}
	}
	s.pending = append(s.pending, rp.held...)
	if rp.unreached == 0 {
		return nil
	}
	var out []objects.OID
	for _, o := range objs {
		if m := s.state[o.ID.Digest]; m&markReached == 0 || !m.of(o.ID) {
			out = append(out, o.ID)
		}
	}
	more := ""
	switch {
	case len(out) == 2:
		more = " (and 1 more object)"
	case len(out) > 2:
		more = fmt.Sprintf(" (and %d more objects)", len(out)-1)
	}
	return fmt.Errorf("the server sent %s%s, which the fetch did not ask for: it is neither linked from the wanted refs' runs nor an attestation or annotation of one of their runs or events: %w; nothing of this reply was stored (the server is faulty or hostile: tell its operator)", out[0], more, ErrNotAsked)
}

// note files reply object o, at position i, under the run or event it
// targets when it is an attestation or annotation.
func (rp *scopeReply) note(o *objects.Object, i int) error {
	if o.Type != objects.TypeAttestation && o.Type != objects.TypeAnnotation {
		return nil
	}
	target, ok, err := associationTarget(o)
	if err != nil || !ok {
		if err != nil {
			return fmt.Errorf("received %w", err)
		}
		return nil
	}
	if rp.notes == nil {
		rp.notes = map[objects.OID][]int32{}
	}
	rp.notes[target] = append(rp.notes[target], int32(i))
	return nil
}

// reach adds id to the scope: a reply object is queued to expand (and
// marked expanded), any other id is held to read; a run or event brings
// its associations in the reply.
func (rp *scopeReply) reach(id objects.OID) {
	s := rp.s
	m, known := s.state[id.Digest]
	switch {
	case known && (m&markReached != 0 || !m.of(id)):
		return // in the scope already, or a digest of another id
	case known:
		// An object of the reply.
		s.state[id.Digest] = m&^markInReply | markReached | markExpanded
		rp.unreached--
		rp.queue = append(rp.queue, int32(m>>markPosShift))
	case id.Type == objects.TypeBlob:
		s.state[id.Digest] = newMark(id, markReached|markExpanded) // no links
	default:
		s.state[id.Digest] = newMark(id, markReached)
		rp.held = append(rp.held, id)
	}
	if rp.notes != nil && (id.Type == objects.TypeRun || id.Type == objects.TypeEvent) {
		for _, i := range rp.notes[id] {
			rp.reach(rp.objs[i].ID)
		}
	}
}

// drain expands the queued reply objects, reaching their links; with
// local set, while some object of the reply is not reached, it also reads
// the held ids from the receiving repository (each once per fetch),
// expanding those stored there. What it does not read stays held.
func (rp *scopeReply) drain(ctx context.Context, local bool) error {
	s := rp.s
	for {
		var links []objects.OID
		switch {
		case len(rp.queue) > 0:
			links = rp.links[rp.queue[0]]
			rp.queue = rp.queue[1:]
		case local && rp.unreached > 0 && len(rp.held) > 0:
			id := rp.held[0]
			rp.held = rp.held[1:]
			m := s.state[id.Digest]
			if m&(markExpanded|markLooked) != 0 || s.local == nil {
				if m&markExpanded == 0 {
					s.pending = append(s.pending, id)
				}
				continue
			}
			s.state[id.Digest] = m | markLooked
			o, err := s.local.Get(ctx, id)
			if errors.Is(err, objects.ErrNotFound) {
				s.pending = append(s.pending, id)
				continue
			}
			if err != nil {
				return fmt.Errorf("what the fetch asked for: %s: %w", id, err)
			}
			if links, err = rp.memo.Links(o); err != nil {
				return fmt.Errorf("%s, stored here: %w", id, err)
			}
			s.state[id.Digest] = m | markLooked | markExpanded
		default:
			return nil
		}
		for _, l := range links {
			rp.reach(l)
		}
	}
}

// associationTarget returns the run or event an attestation or annotation
// names by target_id, and false when it names none or another type.
func associationTarget(o *objects.Object) (objects.OID, bool, error) {
	p, err := o.WithValue()
	if err != nil {
		return objects.OID{}, false, err
	}
	v, ok := p.Value.Get("target_id")
	if !ok || !v.Truthy() || v.Kind != objects.KindString {
		return objects.OID{}, false, nil // no target (SPEC §1.5.5: a falsy one)
	}
	id, err := objects.ParseOIDFor(o.ID.Algo, v.Str)
	if err != nil {
		return objects.OID{}, false, fmt.Errorf("%s %s: target_id: %w", o.Type, o.ID, err)
	}
	return id, id.Type == objects.TypeRun || id.Type == objects.TypeEvent, nil
}
