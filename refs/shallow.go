package refs

import (
	"bytes"
	"slices"

	"github.com/tinehq/tine/objects"
)

// Bounds of the shallow file (SPEC §1.6, §2.7).
const (
	MaxShallowEntries = 10000
	MaxShallowBytes   = 1 << 20
)

// ParseShallow parses a shallow file (SPEC §2.7) and returns its oids
// sorted. The reader accepts unsorted and unterminated files but rejects,
// in this order: more than MaxShallowBytes (shallow.oversized), a non-ASCII
// byte (shallow.not-ascii), any CR (shallow.carriage-return), an empty line
// (shallow.empty-line), more than MaxShallowEntries lines
// (shallow.too-many), a line that is not an oid (oid.malformed) and a
// repeated oid (shallow.duplicate).
func ParseShallow(b []byte) ([]objects.OID, error) {
	if len(b) > MaxShallowBytes {
		return nil, objects.Errorf(objects.ReasonShallowOversized, "shallow file of %d bytes, limit %d", len(b), MaxShallowBytes)
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
	if n > MaxShallowEntries {
		return nil, objects.Errorf(objects.ReasonShallowTooMany, "shallow file has %d entries, limit %d", n, MaxShallowEntries)
	}
	ids := make([]objects.OID, 0, n)
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		if len(line) == 0 {
			return nil, objects.Errorf(objects.ReasonShallowEmptyLine, "shallow file has an empty line after %d entries", len(ids))
		}
		id, err := objects.ParseOID(string(line))
		if err != nil {
			return nil, err
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
