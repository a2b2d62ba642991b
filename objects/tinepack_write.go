package objects

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
)

// WritePack builds the TINEPACK3 frame of objs with boundary shallow
// (SPEC §2.8) and returns it with its pack id. Like the reference writer it
// emits the objects and the boundary sorted by oid, a v3-canonical manifest
// and a level-9 zlib stream, so the same inputs always give the same bytes.
//
// It refuses what a reader or installer would refuse: duplicate objects or
// boundary entries (pack.duplicate-ids), more than MaxPackObjects of either
// (pack.too-many-objects), a boundary entry that is also packed
// (pack.shallow-overlaps-objects), a boundary that is not exactly the set of
// the objects' external links (pack.shallow-not-link-closure), objects
// breaking the structural link rules (link.*), a body or frame over its
// bound (pack.oversized), objects or oids of mixed hash profiles
// (ErrPackAlgoMixed) and an object whose id does not match its content
// (envelope.oid-mismatch).
func WritePack(objs []*Object, shallow []OID) ([]byte, string, error) {
	return WritePackLevel(objs, shallow, packZlibLevel)
}

// PackLevelFast is the zlib level of frames that only cross a wire: the
// pack id hashes the inflated manifest and readers never depend on the
// level, so a transfer may trade frame size for writing speed (level 9
// spends most of a large push or fetch compressing).
const PackLevelFast = zlib.BestSpeed

// WritePackLevel is WritePack with the manifest compressed at zlib level
// (1..9); the frame's pack id does not depend on it.
func WritePackLevel(objs []*Object, shallow []OID, level int) ([]byte, string, error) {
	return WritePackLimits(objs, shallow, level, DefaultPackLimits)
}

// WritePackLimits is WritePackLevel with the manifest counts of lim in
// place of DefaultPackLimits: only a reader that agreed on lim accepts a
// frame past the defaults.
func WritePackLimits(objs []*Object, shallow []OID, level int, lim PackLimits) ([]byte, string, error) {
	lim = lim.orDefault()
	sorted := slices.Clone(objs)
	if err := checkPackObjects(sorted, lim.Objects); err != nil {
		return nil, "", err
	}
	slices.SortFunc(sorted, func(x, y *Object) int { return x.ID.Compare(y.ID) })
	boundary := slices.Clone(shallow)
	slices.SortFunc(boundary, OID.Compare)
	if err := checkPackBoundary(sorted, boundary, lim.Shallow); err != nil {
		return nil, "", err
	}
	if n := packManifestSize(sorted, boundary); n > MaxPackBodyBytes {
		return nil, "", Errorf(ReasonPackOversized, "pack manifest would be %d bytes, over %d", n, MaxPackBodyBytes)
	}
	body := appendPackManifest(make([]byte, 0, packManifestSize(sorted, boundary)), sorted, boundary)
	return sealPack(body, level)
}

// PackManifestFor decodes the stored envelopes with hash profile a and
// returns the v3-canonical manifest body a pack of them carries and its pack
// id ("sha256:" + hex of the body's SHA-256). The objects appear in the
// order given; the boundary is their external link set, sorted (SPEC §2.8:
// exactly the external links). The id does not depend on the compressor.
func PackManifestFor(a Algo, envelopes [][]byte) ([]byte, string, error) {
	objs := make([]*Object, 0, len(envelopes))
	for i, env := range envelopes {
		o, err := DecodeEnvelope(a, env)
		if err != nil {
			return nil, "", fmt.Errorf("pack manifest: envelope %d: %w", i, err)
		}
		objs = append(objs, o)
	}
	if err := checkPackObjects(objs, MaxPackObjects); err != nil {
		return nil, "", err
	}
	boundary, err := externalLinks(objs)
	if err != nil {
		return nil, "", err
	}
	if len(boundary) > MaxPackObjects {
		return nil, "", Errorf(ReasonPackTooManyObjects, "pack boundary of %d oids exceeds %d", len(boundary), MaxPackObjects)
	}
	if n := packManifestSize(objs, boundary); n > MaxPackBodyBytes {
		return nil, "", Errorf(ReasonPackOversized, "pack manifest would be %d bytes, over %d", n, MaxPackBodyBytes)
	}
	body := appendPackManifest(make([]byte, 0, packManifestSize(objs, boundary)), objs, boundary)
	sum := sha256.Sum256(body)
	return body, PackIDPrefix + hex.EncodeToString(sum[:]), nil
}

// sealPack frames a manifest body: magic, the body's SHA-256, and the body
// compressed with zlib at level (9 for stored and exported frames, SPEC
// §2.8).
func sealPack(body []byte, level int) ([]byte, string, error) {
	if len(body) > MaxPackBodyBytes {
		return nil, "", Errorf(ReasonPackOversized, "pack manifest of %d bytes exceeds %d", len(body), MaxPackBodyBytes)
	}
	sum := sha256.Sum256(body)
	var buf bytes.Buffer
	buf.Grow(PackHeaderSize + len(body)/2)
	buf.WriteString(PackMagic)
	buf.Write(sum[:])
	zw, err := zlib.NewWriterLevel(&buf, level)
	if err != nil {
		return nil, "", fmt.Errorf("pack: %w", err)
	}
	if _, err := zw.Write(body); err != nil {
		return nil, "", fmt.Errorf("pack: compress manifest: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, "", fmt.Errorf("pack: compress manifest: %w", err)
	}
	if buf.Len() > MaxPackBytes {
		return nil, "", Errorf(ReasonPackOversized, "pack frame of %d bytes exceeds %d", buf.Len(), MaxPackBytes)
	}
	return buf.Bytes(), PackIDPrefix + hex.EncodeToString(sum[:]), nil
}

// checkPackObjects checks the objects a writer is handed: present, at most
// MaxPackObjects, one hash profile, ids that match their content and no
// duplicates.
func checkPackObjects(objs []*Object, max int) error {
	if len(objs) > max {
		return Errorf(ReasonPackTooManyObjects, "pack of %d objects exceeds %d", len(objs), max)
	}
	seen := make(map[OID]struct{}, len(objs))
	for i, o := range objs {
		if o == nil {
			return fmt.Errorf("pack: object %d is nil", i)
		}
		if o.ID.Algo != objs[0].ID.Algo || !o.ID.Algo.Valid() {
			return fmt.Errorf("pack: object %s: %w", o.ID, ErrPackAlgoMixed)
		}
		// A writer must never name bytes with an id they do not hash to:
		// every reader would refuse the frame (pack.entry-oid-mismatch).
		if o.Type != o.ID.Type || o.ID.Algo.Derive(o.Type, o.Schema, o.Body) != o.ID {
			return Errorf(ReasonEnvelopeOidMismatch, "pack: object %s does not hash to its id", o.ID)
		}
		if _, dup := seen[o.ID]; dup {
			return Errorf(ReasonPackDuplicateIds, "pack: object %s is given twice", o.ID)
		}
		seen[o.ID] = struct{}{}
	}
	return nil
}

// checkPackBoundary checks a sorted boundary against sorted objects: at
// most MaxPackObjects entries of the objects' profile, no duplicates, none
// packed, and exactly the objects' external link set (SPEC §2.8).
func checkPackBoundary(objs []*Object, boundary []OID, max int) error {
	if len(boundary) > max {
		return Errorf(ReasonPackTooManyObjects, "pack boundary of %d oids exceeds %d", len(boundary), max)
	}
	packed := make(map[OID]struct{}, len(objs))
	for _, o := range objs {
		packed[o.ID] = struct{}{}
	}
	for i, id := range boundary {
		if len(objs) > 0 && id.Algo != objs[0].ID.Algo {
			return fmt.Errorf("pack: boundary oid %s: %w", id, ErrPackAlgoMixed)
		}
		if i > 0 && boundary[i-1] == id {
			return Errorf(ReasonPackDuplicateIds, "pack: boundary oid %s is given twice", id)
		}
		if _, both := packed[id]; both {
			return Errorf(ReasonPackShallowOverlapsObjects, "pack: %s is both packed and on the boundary", id)
		}
	}
	ext, err := externalLinks(objs)
	if err != nil {
		return err
	}
	return compareBoundary(ext, boundary)
}

// compareBoundary reports pack.shallow-not-link-closure unless the sorted,
// distinct sets ext (the external links) and declared are equal, naming the
// first oid found in only one of them.
func compareBoundary(ext, declared []OID) error {
	i, j := 0, 0
	for i < len(ext) || j < len(declared) {
		switch {
		case j == len(declared) || i < len(ext) && ext[i].Compare(declared[j]) < 0:
			return Errorf(ReasonPackShallowNotLinkClosure, "link %s leaves the pack but is not on its boundary", ext[i])
		case i == len(ext) || ext[i].Compare(declared[j]) > 0:
			return Errorf(ReasonPackShallowNotLinkClosure, "boundary oid %s is not a link of any packed object", declared[j])
		}
		i, j = i+1, j+1
	}
	return nil
}

// externalLinks returns the sorted, distinct links of objs that name no
// object of objs: the boundary a pack of objs must declare. Only link fields
// count (SPEC §1.5 via Links), never other oid-shaped strings.
func externalLinks(objs []*Object) ([]OID, error) {
	packed := make(map[OID]struct{}, len(objs))
	for _, o := range objs {
		packed[o.ID] = struct{}{}
	}
	var ext []OID
	for _, o := range objs {
		links, err := Links(o)
		if err != nil {
			return nil, err
		}
		for _, l := range links {
			if _, in := packed[l]; !in {
				ext = append(ext, l)
			}
		}
	}
	return sortedOIDs(ext), nil
}
