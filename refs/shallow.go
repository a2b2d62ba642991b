package refs

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/tinehq/tine/objects"
)

// Bounds of the shallow file (SPEC §1.6, §2.7).
const (
	MaxShallowEntries = 10000
	MaxShallowBytes   = 1 << 20
)

// Bounds of a blake3 repository's shallow file. Only tine reads a blake3
// repository (OpenTine refuses its object format), so its shallow file
// need not keep SPEC §2.7's bounds, which a shallow fetch of a run of more
// than 10,000 events passes: the run names every event, so its boundary
// is every event beyond the depth. A run object parses within
// objects.MaxBodyTokens tokens, so it names fewer events than
// MaxShallowEntriesBLAKE3, and one run's boundary always fits; the bytes
// bound is that many of the longest oid line. A sha256 repository keeps
// the SPEC's bounds, so OpenTine reads it.
const (
	MaxShallowEntriesBLAKE3 = objects.MaxBodyTokens
	MaxShallowBytesBLAKE3   = MaxShallowEntriesBLAKE3 * (len("attestation:blake3:") + 64 + 1)
)

// ShallowBounds returns the entry and byte bounds of the shallow file of a
// repository of hash profile a.
func ShallowBounds(a objects.Algo) (entries, size int) {
	if a == objects.BLAKE3 {
		return MaxShallowEntriesBLAKE3, MaxShallowBytesBLAKE3
	}
	return MaxShallowEntries, MaxShallowBytes
}

// ParseShallow parses a shallow file (SPEC §2.7) and returns its oids
// sorted. The reader accepts unsorted and unterminated files but rejects,
// in this order: more than MaxShallowBytes (shallow.oversized), a non-ASCII
// byte (shallow.not-ascii), any CR (shallow.carriage-return), an empty line
// (shallow.empty-line), more than MaxShallowEntries lines
// (shallow.too-many), a line that is not an oid (oid.malformed) and a
// repeated oid (shallow.duplicate).
func ParseShallow(b []byte) ([]objects.OID, error) {
	return parseShallow(b, MaxShallowEntries, MaxShallowBytes, "")
}

// ParseShallowFor is ParseShallow with the bounds of a repository of hash
// profile a (ShallowBounds).
// Every oid must also use a: a blake3 repository's boundary names blake3
// objects only, and the other way round (oid.malformed, naming the line).
func ParseShallowFor(b []byte, a objects.Algo) ([]objects.OID, error) {
	entries, size := ShallowBounds(a)
	return parseShallow(b, entries, size, a)
}

// parseShallow is ParseShallow within maxEntries and maxBytes; a non-empty
// algo also requires every oid to use it.
func parseShallow(b []byte, maxEntries, maxBytes int, algo objects.Algo) ([]objects.OID, error) {
	if len(b) > maxBytes {
		return nil, objects.Errorf(objects.ReasonShallowOversized, "shallow file of %d bytes, limit %d", len(b), maxBytes)
	}
	for i, c := range b {
		if c >= 0x80 {
			return nil, objects.Errorf(objects.ReasonShallowNotAscii, "shallow file has a non-ASCII byte at offset %d", i)
		}
		if c == '\r' {
			return nil, objects.Errorf(objects.ReasonShallowCarriageReturn, "shallow file has a CR at offset %d", i)
		}
	}
	if len(b) == 0 {
		return []objects.OID{}, nil
	}
	// One final LF terminates the last line; it does not start an empty one.
	body := bytes.TrimSuffix(b, []byte("\n"))
	n := bytes.Count(body, []byte("\n")) + 1
	if n > maxEntries {
		return nil, objects.Errorf(objects.ReasonShallowTooMany, "shallow file has %d entries, limit %d", n, maxEntries)
	}
	ids := make([]objects.OID, 0, n)
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		if len(line) == 0 {
			return nil, objects.Errorf(objects.ReasonShallowEmptyLine, "shallow file has an empty line after %d entries", len(ids))
		}
		id, err := objects.ParseOID(string(line))
		if err != nil {
			return nil, fmt.Errorf("shallow file line %d: %w", len(ids)+1, err)
		}
		if algo != "" && id.Algo != algo {
			return nil, objects.Errorf(objects.ReasonOidMalformed, "shallow file line %d: %s uses %s, this repository uses %s", len(ids)+1, id, id.Algo, algo)
		}
		ids = append(ids, id)
	}
	slices.SortFunc(ids, objects.OID.Compare)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			return nil, objects.Errorf(objects.ReasonShallowDuplicate, "shallow file lists %s twice", ids[i])
		}
	}
	return ids, nil
}

// EncodeShallow returns the canonical shallow file for a set of oids: sorted,
// deduplicated, every line LF-terminated; the empty set is the empty file
// (SPEC §2.7). Zero OIDs name nothing and are dropped.
func EncodeShallow(ids []objects.OID) []byte {
	sorted := make([]objects.OID, 0, len(ids))
	for _, id := range ids {
		if !id.IsZero() {
			sorted = append(sorted, id)
		}
	}
	slices.SortFunc(sorted, objects.OID.Compare)
	sorted = slices.Compact(sorted)
	var buf bytes.Buffer
	for _, id := range sorted {
		buf.WriteString(id.String())
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}
