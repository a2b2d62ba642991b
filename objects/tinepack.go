package objects

import (
	"encoding/base64"
	"errors"
	"slices"
	"strings"
)

// TINEPACK3 is the transfer frame of SPEC §2.8:
//
//	off 0   10 bytes  "TINEPACK3\x00"
//	off 10  32 bytes  SHA-256 of the inflated manifest body (raw digest)
//	off 42  n bytes   zlib stream (RFC 1950) of the manifest body
//
// The manifest body is v3-canonical JSON:
//
//	{"objects":[{"data":"<std base64 of the stored envelope>","id":"<oid>"},...],
//	 "shallow":["<oid>",...],"version":1}
//
// The pack id is "sha256:" + hex(bytes 10..42) in every repository: the frame
// format is fixed, so a blake3 repository still names its packs with SHA-256.
// The objects it carries use the repository's hash profile.

// Pack frame constants and bounds (SPEC §2.8, §1.6).
const (
	// PackMagic is the ten bytes every TINEPACK3 frame begins with.
	PackMagic = "TINEPACK3\x00"
	// PackHeaderSize is the length of the magic plus the manifest digest.
	PackHeaderSize = len(PackMagic) + 32
	// MaxPackBytes bounds a whole frame; it is checked against the length
	// before anything is inflated (pack.oversized).
	MaxPackBytes = 268435456
	// MaxPackBodyBytes bounds the inflated manifest body (pack.oversized).
	MaxPackBodyBytes = 268435456
	// MaxPackObjects bounds both the objects and the shallow array of one
	// manifest (pack.too-many-objects), and the objects PackClosure visits.
	MaxPackObjects = 10000
	// PackIDPrefix starts every pack id; the rest is 64 lowercase hex.
	PackIDPrefix = "sha256:"
)

// packManifestTokens is the structural token budget of a manifest scan
// (SPEC §0.5). A manifest at both count bounds needs about 70010 tokens (six
// per object entry, one per shallow entry), so every manifest the count
// rules could accept fits, while a hostile body cannot make the parser
// build an unbounded tree.
const packManifestTokens = MaxBodyTokens

// packZlibLevel is the compression level writers use (SPEC §2.8). Readers
// never depend on it: the pack id hashes the inflated body.
const packZlibLevel = 9

// Errors of the pack functions that are not format violations.
var (
	// ErrPackAlgoMixed reports objects or boundary oids of more than one
	// hash profile handed to a pack writer: a manifest is read with one.
	ErrPackAlgoMixed = errors.New("pack mixes object hash profiles")
)

// PackFrame is a verified TINEPACK3 frame.
type PackFrame struct {
	// ID is the pack id, "sha256:<64 hex>" (SPEC §2.8).
	ID string
	// Objects are the decoded, id-verified objects. InspectPack returns
	// them in manifest order; InstallPack in the order it wrote them, link
	// targets first.
	Objects []*Object
	// Shallow is the manifest's shallow boundary, in manifest order.
	Shallow []OID
	// Boundary is set by InstallPack only: the Shallow oids the store does
	// not hold once the pack is installed, sorted. The installer does not
	// touch the repository's shallow file; the caller records these
	// entries there (SPEC §2.7) so later link checks accept them.
	Boundary []OID
}

// ObjectIDs returns the ids of f's objects in f's order.
func (f *PackFrame) ObjectIDs() []OID {
	ids := make([]OID, len(f.Objects))
	for i, o := range f.Objects {
		ids[i] = o.ID
	}
	return ids
}

// packStrictBase64 decodes standard padded base64 and refuses everything
// else. SPEC §2.8 (and §6 item 7): Go's decoder silently skips CR and LF, so
// they are refused first; Strict refuses non-zero padding bits, so a payload
// has exactly one spelling and the pack id covers exactly one object set.
func packStrictBase64(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("base64 holds a line break")
	}
	return base64.StdEncoding.Strict().DecodeString(s)
}

// sortedOIDs returns a sorted copy of ids without duplicates.
func sortedOIDs(ids []OID) []OID {
	out := slices.Clone(ids)
	slices.SortFunc(out, OID.Compare)
	return slices.Compact(out)
}

// appendPackManifest appends the v3-canonical manifest of objs and shallow,
// in the orders given. It writes the bytes directly instead of building a
// Value: every string in a manifest is base64 or an oid, which need no
// escaping, and the keys are already in canonical (UTF-16) order, so the
// output equals CanonV3 of the same manifest (tests check this).
func appendPackManifest(dst []byte, objs []*Object, shallow []OID) []byte {
	dst = append(dst, `{"objects":[`...)
	var scratch []byte
	for i, o := range objs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"data":"`...)
		scratch = o.AppendStored(scratch[:0])
		dst = base64.StdEncoding.AppendEncode(dst, scratch)
		dst = append(dst, `","id":"`...)
		dst = append(dst, o.ID.String()...)
		dst = append(dst, `"}`...)
	}
	dst = append(dst, `],"shallow":[`...)
	for i, id := range shallow {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, id.String()...)
		dst = append(dst, '"')
	}
	return append(dst, `],"version":1}`...)
}

// packManifestSize returns the exact length appendPackManifest produces, so
// a writer can refuse an oversized body before allocating it.
func packManifestSize(objs []*Object, shallow []OID) int64 {
	n := int64(len(`{"objects":[],"shallow":[],"version":1}`))
	for i, o := range objs {
		if i > 0 {
			n++
		}
		stored := int64(len(AppendHeader(nil, o.Type, o.Schema)) + 1 + len(o.Body))
		n += int64(len(`{"data":"","id":""}`)) + (stored+2)/3*4 + int64(len(o.ID.String()))
	}
	for i, id := range shallow {
		if i > 0 {
			n++
		}
		n += 2 + int64(len(id.String()))
	}
	return n
}
