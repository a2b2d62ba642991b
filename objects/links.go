package objects

import (
	"fmt"
	"slices"
	"strings"
)

// Links returns every link of o, one entry per occurrence (a multiset: the
// same oid named twice is returned twice), after checking the structural
// link rules of SPEC §1.5 and, for an event, its metrics (SPEC §1.5.2). It
// does not check that the linked objects exist; see CheckLinksExist.
//
// An oid in a payload must use o's own hash profile: a sha256 object that
// names a blake3 oid is oid.malformed.
func Links(o *Object) ([]OID, error) {
	p := linkParser{o: o, a: o.ID.Algo}
	return p.extract()
}

// extract is Links on the parser's object; a run's events, roots and tips
// stay in p.runLists.
func (p *linkParser) extract() ([]OID, error) {
	o := p.o
	if o.Type == TypeBlob {
		return nil, nil // SPEC §1.5.1: a blob has no links
	}
	var err error
	switch o.Type {
	case TypeEvent:
		err = p.event()
	case TypeRun:
		err = p.run()
	case TypeAttestation:
		err = p.attestation()
	case TypeAnnotation:
		err = p.annotation()
	default:
		err = Errorf(ReasonEnvelopeUnknownType, "unknown object type %.40q", string(o.Type))
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", o.Type, o.ID, err)
	}
	for _, l := range p.links {
		// SPEC §1.5.6: an object never links to itself. Building one needs a
		// hash preimage, so this guards against a forged in-memory object.
		if l == o.ID {
			return nil, Errorf(ReasonLinkMissingObject, "%s %s links to itself", o.Type, o.ID)
		}
	}
	return p.links, nil
}

// linkParser accumulates the links of one object while checking them.
type linkParser struct {
	o     *Object
	a     Algo
	links []OID
	// runLists holds a run's parsed events, roots and tips once run()
	// parsed them, and runPayload the payload they were read from (a
	// split body's members other than events, for an unparsed run).
	runLists   *runGraph
	runPayload Value
}

// payload returns the object's body, which SPEC §1.5 requires to be a JSON
// object. No reason code names that rule alone, so the type's primary
// structural code reports it.
func (p *linkParser) payload(r Reason) (Value, error) {
	if p.o.unparsed {
		o, err := p.o.WithValue()
		if err != nil {
			return Value{}, err
		}
		p.o = o
	}
	if p.o.Value.Kind != KindObject {
		return Value{}, Errorf(r, "payload is a JSON %s, not an object", p.o.Value.Kind)
	}
	return p.o.Value, nil
}

// oid parses one payload oid with the object's hash profile and requires the
// type want ("" for any type). A non-string or wrong-typed value is reported
// with reason r; a malformed oid string with oid.malformed. index >= 0 names
// a list element; the name is only formatted on failure, as this runs for
// every link of every object read.
func (p *linkParser) oid(field string, index int, v Value, want Type, r Reason) (OID, error) {
	if v.Kind != KindString {
		return OID{}, Errorf(r, "%s is a JSON %s, not an oid", fieldName(field, index), v.Kind)
	}
	id, err := ParseOIDFor(p.a, v.Str)
	if err != nil {
		return OID{}, fmt.Errorf("%s: %w", fieldName(field, index), err)
	}
	if want != "" && id.Type != want {
		return OID{}, Errorf(r, "%s names %s, not %s", fieldName(field, index), id.Type.WithArticle(), want.WithArticle())
	}
	return id, nil
}

// fieldName spells a payload location for an error message.
func fieldName(field string, index int) string {
	if index < 0 {
		return field
	}
	return fmt.Sprintf("%s[%d]", field, index)
}

// oidList parses a list of oids of type want with no duplicates. Python's
// `payload.get(field) or []` makes a falsy value count as absent.
func (p *linkParser) oidList(payload Value, field string, want Type, notList, dup Reason) ([]OID, error) {
	v, ok := payload.Get(field)
	if !ok || !v.Truthy() {
		return nil, nil
	}
	if v.Kind != KindArray {
		return nil, Errorf(notList, "%s is a JSON %s, not a list", field, v.Kind)
	}
	ids := make([]OID, 0, len(v.Array))
	for i, e := range v.Array {
		id, err := p.oid(field, i, e, want, notList)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if i, j, found := findDuplicate(ids); found {
		return nil, Errorf(dup, "%s names %s twice (entries %d and %d)", field, ids[i], i, j)
	}
	return ids, nil
}

// findDuplicate returns the indexes of two equal oids. Short lists, the
// usual parent_ids, are compared pairwise to avoid building a set.
func findDuplicate(ids []OID) (int, int, bool) {
	if len(ids) <= 16 {
		for j := 1; j < len(ids); j++ {
			for i := 0; i < j; i++ {
				if ids[i] == ids[j] {
					return i, j, true
				}
			}
		}
		return 0, 0, false
	}
	seen := make(map[OID]int, len(ids))
	for j, id := range ids {
		if i, ok := seen[id]; ok {
			return i, j, true
		}
		seen[id] = j
	}
	return 0, 0, false
}

// optionalOID parses field if its value is truthy (SPEC §1.5: "if truthy").
func (p *linkParser) optionalOID(payload Value, field string, want Type, r Reason) (OID, bool, error) {
	v, ok := payload.Get(field)
	if !ok || !v.Truthy() {
		return OID{}, false, nil
	}
	id, err := p.oid(field, -1, v, want, r)
	return id, err == nil, err
}

// event applies SPEC §1.5.2: parent_ids and causal_ids are lists of distinct
// event oids; the three *_blob fields, when truthy, are blob oids; and the
// metrics rules hold.
func (p *linkParser) event() error {
	pl, err := p.payload(ReasonLinkParentIdsNotEvents)
	if err != nil {
		return err
	}
	for _, field := range [...]string{"parent_ids", "causal_ids"} {
		ids, err := p.oidList(pl, field, TypeEvent, ReasonLinkParentIdsNotEvents, ReasonLinkParentIdsDuplicate)
		if err != nil {
			return err
		}
		p.links = append(p.links, ids...)
	}
	for _, field := range [...]string{"input_blob", "output_blob", "artifact_blob"} {
		id, ok, err := p.optionalOID(pl, field, TypeBlob, ReasonLinkEventBlobNotBlob)
		if err != nil {
			return err
		}
		if ok {
			p.links = append(p.links, id)
		}
	}
	return CheckMetrics(pl)
}

// attestation applies SPEC §1.5.4: target_id is required and names a run;
// evidence_ids is a list of oids of any type.
func (p *linkParser) attestation() error {
	pl, err := p.payload(ReasonLinkAttestationTargetNotRun)
	if err != nil {
		return err
	}
	id, ok, err := p.optionalOID(pl, "target_id", TypeRun, ReasonLinkAttestationTargetNotRun)
	if err != nil {
		return err
	}
	if !ok {
		return Errorf(ReasonLinkAttestationTargetNotRun, "target_id is required")
	}
	p.links = append(p.links, id)
	return p.evidence(pl)
}

// annotation applies SPEC §1.5.5: a truthy target_id is an oid of any type,
// a truthy previous_id an annotation oid, and evidence_ids as for
// attestations.
func (p *linkParser) annotation() error {
	pl, err := p.payload(ReasonLinkEvidenceNotList)
	if err != nil {
		return err
	}
	if id, ok, err := p.optionalOID(pl, "target_id", "", ReasonOidMalformed); err != nil {
		return err
	} else if ok {
		p.links = append(p.links, id)
	}
	if id, ok, err := p.optionalOID(pl, "previous_id", TypeAnnotation, ReasonLinkAnnotationPreviousNotAnnotation); err != nil {
		return err
	} else if ok {
		p.links = append(p.links, id)
	}
	return p.evidence(pl)
}

// evidence applies the evidence_ids rule (SPEC §1.5.4): absent, or a list
// whose entries are valid oids of any type; any other value is refused.
func (p *linkParser) evidence(pl Value) error {
	v, ok := pl.Get("evidence_ids")
	if !ok {
		return nil
	}
	if v.Kind != KindArray {
		return Errorf(ReasonLinkEvidenceNotList, "evidence_ids is a JSON %s, not a list", v.Kind)
	}
	for i, e := range v.Array {
		id, err := p.oid("evidence_ids", i, e, "", ReasonOidMalformed)
		if err != nil {
			return err
		}
		p.links = append(p.links, id)
	}
	return nil
}

// run applies SPEC §1.5.3's link rules: manifests is an object of blob oids;
// events, roots and tips are lists of distinct event oids, roots and tips
// subsets of events; any truthy top-level *_blob value is a blob oid. The
// links are roots, tips, events, manifest values, then *_blob values.
func (p *linkParser) run() error {
	if p.o.unparsed {
		if rb, err := SplitRunBody(p.a, p.o.Body); err == nil {
			return p.runBody(rb)
		}
	}
	pl, err := p.payload(ReasonLinkRunEventsInvalid)
	if err != nil {
		return err
	}
	manifests, hasManifests := pl.Get("manifests")
	if hasManifests && manifests.Truthy() && manifests.Kind != KindObject {
		return Errorf(ReasonLinkRunManifestsNotObject, "manifests is a JSON %s, not an object", manifests.Kind)
	}
	events, err := runEvents(p, pl)
	if err != nil {
		return err
	}
	return p.runLinks(pl, events)
}

// runBody is run for an unparsed run whose body SplitRunBody took apart:
// the events list is read from its bytes (each element checked an event
// oid of the run's profile by the split), with no value per event, and
// the other members as run reads them, to the same links and errors
// (TestRunCheckMatchesValidate compares them).
func (p *linkParser) runBody(rb *RunBody) error {
	pl := payload(rb)
	manifests, hasManifests := pl.Get("manifests")
	if hasManifests && manifests.Truthy() && manifests.Kind != KindObject {
		return Errorf(ReasonLinkRunManifestsNotObject, "manifests is a JSON %s, not an object", manifests.Kind)
	}
	events := make([]OID, rb.Len())
	for i := range events {
		events[i] = rb.Event(i)
	}
	if i, j, found := findDuplicate(events); found {
		return Errorf(ReasonLinkRunEventsInvalid, "events names %s twice (entries %d and %d)", events[i], i, j)
	}
	return p.runLinks(pl, events)
}

// runLinks checks roots, tips and the blob members of a run's payload pl
// whose events list parsed as events, and records the links.
func (p *linkParser) runLinks(pl Value, events []OID) error {
	manifests, hasManifests := pl.Get("manifests")
	// Roots and tips are few: each is looked for in the list, until
	// enough are looked for that a set of the events pays.
	var inRun map[OID]struct{}
	looked := 0
	isEvent := func(id OID) bool {
		if looked++; inRun == nil && looked > 8 {
			inRun = make(map[OID]struct{}, len(events))
			for _, e := range events {
				inRun[e] = struct{}{}
			}
		}
		if inRun != nil {
			_, ok := inRun[id]
			return ok
		}
		return slices.Contains(events, id)
	}
	var lists [2][]OID
	for i, field := range [...]string{"roots", "tips"} {
		ids, err := p.oidList(pl, field, TypeEvent, ReasonLinkRunRootsTipsInvalid, ReasonLinkRunRootsTipsInvalid)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if !isEvent(id) {
				return Errorf(ReasonLinkRunRootsTipsNotSubset, "%s names %s, which is not in events", field, id)
			}
		}
		p.links = append(p.links, ids...)
		lists[i] = ids
	}
	p.links = append(p.links, events...)
	p.runLists, p.runPayload = &runGraph{events: events, roots: lists[0], tips: lists[1]}, pl
	if hasManifests && manifests.Kind == KindObject {
		for _, m := range manifests.Object {
			id, err := p.oid("manifests."+m.Key, -1, m.Value, TypeBlob, ReasonLinkRunBlobNotBlob)
			if err != nil {
				return err
			}
			p.links = append(p.links, id)
		}
	}
	for _, m := range pl.Object {
		if !strings.HasSuffix(m.Key, "_blob") || !m.Value.Truthy() {
			continue
		}
		id, err := p.oid(m.Key, -1, m.Value, TypeBlob, ReasonLinkRunBlobNotBlob)
		if err != nil {
			return err
		}
		p.links = append(p.links, id)
	}
	return nil
}

// runEvents parses a run's events list: distinct event oids.
func runEvents(p *linkParser, pl Value) ([]OID, error) {
	return p.oidList(pl, "events", TypeEvent, ReasonLinkRunEventsInvalid, ReasonLinkRunEventsInvalid)
}
