package objects

import (
	"fmt"
)

// decodePackManifest applies the manifest table of SPEC §2.8 to a parsed,
// canonical manifest, in the table's order: key set, version, arrays,
// counts, then every entry (shape, base64, envelope, id), duplicate ids,
// boundary oids and duplicates, and last the objects/boundary overlap.
func decodePackManifest(m Value, a Algo, lim PackLimits) (*PackFrame, error) {
	objectsV, okO := m.Get("objects")
	shallowV, okS := m.Get("shallow")
	versionV, okV := m.Get("version")
	if len(m.Object) != 3 || !okO || !okS || !okV {
		return nil, Errorf(ReasonPackManifestKeySet, "pack manifest keys must be exactly objects, shallow and version")
	}
	// SPEC §2.8: the integer 1; true compares equal to 1 in the reference's
	// language and is still refused.
	if versionV.Kind != KindInt || versionV.Big != nil || versionV.Int != 1 {
		return nil, Errorf(ReasonPackVersionUnsupported, "pack manifest version must be the integer 1")
	}
	if objectsV.Kind != KindArray || shallowV.Kind != KindArray {
		return nil, Errorf(ReasonPackArraysInvalid, "pack manifest objects and shallow must be arrays")
	}
	if len(objectsV.Array) > lim.Objects || len(shallowV.Array) > lim.Shallow {
		return nil, Errorf(ReasonPackTooManyObjects, "pack manifest holds %d objects and %d shallow entries, over %d and %d",
			len(objectsV.Array), len(shallowV.Array), lim.Objects, lim.Shallow)
	}
	pf := &PackFrame{
		Objects: make([]*Object, 0, len(objectsV.Array)),
		Shallow: make([]OID, 0, len(shallowV.Array)),
	}
	packed := make(map[OID]int, len(objectsV.Array))
	for i, e := range objectsV.Array {
		o, err := decodePackEntry(i, e, a)
		if err != nil {
			return nil, err
		}
		if j, dup := packed[o.ID]; dup {
			return nil, Errorf(ReasonPackDuplicateIds, "objects[%d] and objects[%d] are both %s", j, i, o.ID)
		}
		packed[o.ID] = i
		pf.Objects = append(pf.Objects, o)
	}
	boundary := make(map[OID]int, len(shallowV.Array))
	for i, e := range shallowV.Array {
		if e.Kind != KindString {
			return nil, Errorf(ReasonPackShallowInvalidOid, "shallow[%d] is a JSON %s, not an oid", i, e.Kind)
		}
		// The boundary names objects of this repository, so it uses the
		// repository's hash profile, as the object ids do.
		id, err := ParseOIDFor(a, e.Str)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", Errorf(ReasonPackShallowInvalidOid, "shallow[%d]", i), err)
		}
		if j, dup := boundary[id]; dup {
			return nil, Errorf(ReasonPackDuplicateIds, "shallow[%d] and shallow[%d] are both %s", j, i, id)
		}
		boundary[id] = i
		pf.Shallow = append(pf.Shallow, id)
	}
	for i, id := range pf.Shallow {
		if j, both := packed[id]; both {
			return nil, Errorf(ReasonPackShallowOverlapsObjects, "shallow[%d] names objects[%d], %s", i, j, id)
		}
	}
	return pf, nil
}

// decodePackEntry decodes objects[i]: an object with keys exactly data and
// id (pack.entry-shape), data strict base64 (pack.entry-base64) of a valid
// envelope, whose derived oid is id (pack.entry-oid-mismatch).
func decodePackEntry(i int, e Value, a Algo) (*Object, error) {
	if e.Kind != KindObject || len(e.Object) != 2 {
		return nil, Errorf(ReasonPackEntryShape, "objects[%d] must be an object with keys data and id", i)
	}
	data, okD := e.Get("data")
	idV, okI := e.Get("id")
	if !okD || !okI {
		return nil, Errorf(ReasonPackEntryShape, "objects[%d] must have keys exactly data and id", i)
	}
	if data.Kind != KindString || idV.Kind != KindString {
		return nil, Errorf(ReasonPackEntryShape, "objects[%d] data and id must be strings", i)
	}
	stored, err := packStrictBase64(data.Str)
	if err != nil {
		return nil, Errorf(ReasonPackEntryBase64, "objects[%d] (%.80s) data is not strict base64: %v", i, idV.Str, err)
	}
	o, err := DecodeEnvelope(a, stored)
	if err != nil {
		// The reference reports a packed envelope that does not decode as
		// an invalid packed object; the envelope's own reason stays in the
		// chain for a reader who needs the rule.
		return nil, fmt.Errorf("%w: %w",
			Errorf(ReasonPackEntryShape, "objects[%d] (%.80s) is not a valid envelope", i, idV.Str), err)
	}
	if o.ID.String() != idV.Str {
		return nil, Errorf(ReasonPackEntryOidMismatch, "objects[%d] declares %.80q but its envelope is %s", i, idV.Str, o.ID)
	}
	return o, nil
}
