package objects

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// errNoByteCheck sends ValidateAppend to the parsed check.
var errNoByteCheck = errors.New("no byte check")

// validateAppendBytes is ValidateAppend's byte check. It mirrors
// validateAppendParsed rule for rule and in the same order: Links(run),
// the links of base, CheckLinksExist of the new links, CheckRunAppend.
func validateAppendBytes(run, base *Object, r Resolver) ([]OID, error) {
	a := run.ID.Algo
	bb, err := SplitRunBody(a, base.Body)
	if err != nil {
		return nil, errNoByteCheck
	}
	var trusted []byte
	if bb.count > 0 {
		l := bb.eventList()
		trusted = l[:len(l)-1]
	}
	rb, err := splitRunBody(a, run.Body, trusted, bb.count)
	if err != nil {
		return nil, errNoByteCheck
	}
	rl := rb.eventList()
	if bb.count > 0 && !(len(rl) > len(trusted) && bytes.HasPrefix(rl, trusted) && (rl[len(trusted)] == ',' || rl[len(trusted)] == ']')) {
		return nil, errNoByteCheck
	}
	v := appendCheck{run: run, base: base, rb: rb, bb: bb, p: linkParser{o: run, a: a}}
	fresh, err := v.links()
	if err != nil {
		return nil, err
	}
	if err := CheckLinksExist(fresh, r); err != nil {
		return nil, fmt.Errorf("%s %s: %w", run.Type, run.ID, err)
	}
	if err := v.graph(r); err != nil {
		return nil, fmt.Errorf("run %s: %w", run.ID, err)
	}
	return fresh, nil
}

// appendCheck holds the two split bodies of a byte check.
type appendCheck struct {
	run, base *Object
	rb, bb    *RunBody
	p         linkParser
	added     []OID       // run's events after base's
	at        map[OID]int // their positions in run's list
}

// payload is a body's members other than events, parsed: what the link
// parser reads roots, tips, manifests and the *_blob members from.
func payload(b *RunBody) Value {
	ms := make([]Member, 0, len(b.members))
	for i, m := range b.members {
		if i != b.events {
			ms = append(ms, Member{Key: m.key, Value: m.value})
		}
	}
	return ObjectValue(ms...)
}

// position is an event's index in run's list.
func (v *appendCheck) position(id OID) (int, bool) {
	if i, ok := v.at[id]; ok {
		return i, true
	}
	if i := v.bb.Index(id); i >= 0 {
		return i, true
	}
	return 0, false
}

// links applies Links' run rules to run (base's part of the events list
// was checked when base was) and returns the links base does not hold.
func (v *appendCheck) links() ([]OID, error) {
	pl := payload(v.rb)
	manifests, hasManifests := pl.Get("manifests")
	if hasManifests && manifests.Truthy() && manifests.Kind != KindObject {
		return nil, v.linkErr(Errorf(ReasonLinkRunManifestsNotObject, "manifests is a JSON %s, not an object", manifests.Kind))
	}
	nb := v.bb.count
	v.at = make(map[OID]int, v.rb.count-nb)
	for i := nb; i < v.rb.count; i++ {
		id := v.rb.Event(i)
		j, dup := v.at[id]
		if !dup {
			j = v.bb.Index(id)
			dup = j >= 0
		}
		if dup {
			return nil, v.linkErr(Errorf(ReasonLinkRunEventsInvalid, "events names %s twice (entries %d and %d)", id, j, i))
		}
		v.at[id] = i
		v.added = append(v.added, id)
	}
	var fresh []OID
	for _, field := range [...]string{"roots", "tips"} {
		ids, err := v.p.oidList(pl, field, TypeEvent, ReasonLinkRunRootsTipsInvalid, ReasonLinkRunRootsTipsInvalid)
		if err != nil {
			return nil, v.linkErr(err)
		}
		for _, id := range ids {
			if _, ok := v.position(id); !ok {
				return nil, v.linkErr(Errorf(ReasonLinkRunRootsTipsNotSubset, "%s names %s, which is not in events", field, id))
			}
			if _, isNew := v.at[id]; isNew {
				fresh = append(fresh, id)
			}
		}
	}
	fresh = append(fresh, v.added...)
	blobs, err := blobLinks(&v.p, pl)
	if err != nil {
		return nil, v.linkErr(err)
	}
	// Base's links were checked when base was written; its lists are
	// parsed again for the sets this check needs, in Links' order.
	bp := linkParser{o: v.base, a: v.p.a}
	basePl := payload(v.bb)
	for _, field := range [...]string{"roots", "tips"} {
		if _, err := bp.oidList(basePl, field, TypeEvent, ReasonLinkRunRootsTipsInvalid, ReasonLinkRunRootsTipsInvalid); err != nil {
			return nil, v.baseErr(err)
		}
	}
	baseBlobs, err := blobLinks(&bp, basePl)
	if err != nil {
		return nil, v.baseErr(err)
	}
	old := make(map[OID]bool, len(baseBlobs))
	for _, id := range baseBlobs {
		old[id] = true
	}
	for _, id := range blobs {
		if !old[id] {
			fresh = append(fresh, id)
		}
	}
	return fresh, nil
}

// baseErr names base as validateAppendParsed does.
func (v *appendCheck) baseErr(err error) error {
	return fmt.Errorf("base %s: %s %s: %w", v.base.ID, v.base.Type, v.base.ID, err)
}

// linkErr names run as Links does.
func (v *appendCheck) linkErr(err error) error {
	return fmt.Errorf("%s %s: %w", v.run.Type, v.run.ID, err)
}

// blobLinks returns a run's manifests values and truthy top-level *_blob
// values, checked as Links checks them, in Links' order.
func blobLinks(p *linkParser, pl Value) ([]OID, error) {
	var out []OID
	if manifests, ok := pl.Get("manifests"); ok && manifests.Kind == KindObject {
		for _, m := range manifests.Object {
			id, err := p.oid("manifests."+m.Key, -1, m.Value, TypeBlob, ReasonLinkRunBlobNotBlob)
			if err != nil {
				return nil, err
			}
			out = append(out, id)
		}
	}
	for _, m := range pl.Object {
		if !strings.HasSuffix(m.Key, "_blob") || !m.Value.Truthy() {
			continue
		}
		id, err := p.oid(m.Key, -1, m.Value, TypeBlob, ReasonLinkRunBlobNotBlob)
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// graph applies CheckRunAppend's rules to the appended events.
func (v *appendCheck) graph(r Resolver) error {
	pl := payload(v.rb)
	if st, ok := pl.Get("status"); ok && (st.Kind != KindString || !runStatuses[st.Str]) {
		return Errorf(ReasonGraphStatusInvalid, "status must be running, paused, completed or failed")
	}
	evs, err := resolveAppended(r, v.added)
	if err != nil {
		return err
	}
	if err := checkLegacyRefs(&v.p, pl, v.position); err != nil {
		return err
	}
	bp := linkParser{o: v.base, a: v.p.a}
	basePl := payload(v.bb)
	wantRoots, err := oidSet(&bp, basePl, "roots")
	if err != nil {
		return fmt.Errorf("base %s: %w", v.base.ID, err)
	}
	wantTips, err := oidSet(&bp, basePl, "tips")
	if err != nil {
		return fmt.Errorf("base %s: %w", v.base.ID, err)
	}
	for k, ev := range evs {
		parents, causal, err := eventGraphLinks(ev)
		if err != nil {
			return err
		}
		if err := checkInside(ev.ID, v.bb.count+k, parents, causal, v.position); err != nil {
			return err
		}
		if len(parents) == 0 {
			wantRoots[ev.ID] = true
		}
		wantTips[ev.ID] = true
		for _, l := range parents {
			delete(wantTips, l)
		}
	}
	return checkListsEqual(&v.p, pl, wantRoots, wantTips)
}
