package refs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

const event2OID = "event:sha256:e5de70c30d002e683da10de56bc0afd83a9df2825413920a6575f5dfedd4c57d"

// genOIDs returns n distinct blob oid lines, like the vectors' "oids" recipe.
func genOIDs(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "blob:sha256:%064x\n", i)
	}
	return b.String()
}

// Cases of conformance vectors 27-shallow (shallow.parse) and 16-bounds.
func TestParseShallow(t *testing.T) {
	sorted := []string{blobOID, eventOID, event2OID}
	tests := []struct {
		id, in  string
		want    []string
		reasons []objects.Reason
	}{
		{"carriage-return", blobOID + "\r\n", nil, []objects.Reason{objects.ReasonShallowCarriageReturn}},
		{"duplicate-entry", blobOID + "\n" + blobOID + "\n", nil, []objects.Reason{objects.ReasonShallowDuplicate}},
		{"empty-file", "", []string{}, nil},
		{"empty-line", blobOID + "\n\n" + eventOID + "\n", nil, []objects.Reason{objects.ReasonShallowEmptyLine}},
		{"mixed-types", blobOID + "\n" + eventOID + "\n" + runOID + "\n", []string{blobOID, eventOID, runOID}, nil},
		{"non-ascii", "blob:sha256:\u00e9\n", nil, []objects.Reason{objects.ReasonShallowNotAscii}},
		{"not-an-oid", "blob:sha256:short\n", nil, []objects.Reason{objects.ReasonOidMalformed}},
		{"single-entry", blobOID + "\n", []string{blobOID}, nil},
		{"sorted-terminated", blobOID + "\n" + eventOID + "\n" + event2OID + "\n", sorted, nil},
		{"unsorted-accepts", event2OID + "\n" + eventOID + "\n" + blobOID + "\n", sorted, nil},
		{"unterminated-accepts", blobOID + "\n" + eventOID + "\n" + event2OID, sorted, nil},
		{"lone-lf", "\n", nil, []objects.Reason{objects.ReasonShallowEmptyLine}},
		{"leading-lf", "\n" + blobOID, nil, []objects.Reason{objects.ReasonShallowEmptyLine}},
		{"bounds.10000", genOIDs(10000), nil, nil},
		{"bounds.10001", genOIDs(10001), nil, []objects.Reason{objects.ReasonShallowTooMany}},
		{"bounds.over-1-mib", genOIDs(14000), nil, []objects.Reason{objects.ReasonShallowOversized, objects.ReasonShallowTooMany}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			ids, err := ParseShallow([]byte(tc.in))
			if tc.reasons != nil {
				r, _ := objects.ReasonOf(err)
				for _, want := range tc.reasons {
					if r == want {
						return
					}
				}
				t.Fatalf("ParseShallow = %d ids, %v; want %v", len(ids), err, tc.reasons)
			}
			if err != nil {
				t.Fatalf("ParseShallow: %v", err)
			}
			if tc.want == nil {
				return
			}
			if len(ids) != len(tc.want) {
				t.Fatalf("got %v, want %v", ids, tc.want)
			}
			for i := range ids {
				if ids[i].String() != tc.want[i] {
					t.Fatalf("got %v, want %v", ids, tc.want)
				}
			}
		})
	}
}

// Cases of 27-shallow and 16-bounds (shallow.encode).
func TestEncodeShallow(t *testing.T) {
	parse := func(ss ...string) []objects.OID {
		var ids []objects.OID
		for _, s := range ss {
			id, err := objects.ParseOID(s)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	tests := []struct {
		id   string
		in   []objects.OID
		want string
	}{
		{"empty-set", nil, ""},
		{"sorts-and-terminates", parse(eventOID, blobOID), blobOID + "\n" + eventOID + "\n"},
		{"bounds.deduplicates", parse(blobOID, blobOID), blobOID + "\n"},
		{"bounds.sorts-three", parse(event2OID, blobOID, eventOID), blobOID + "\n" + eventOID + "\n" + event2OID + "\n"},
		{"drops-zero", append(parse(blobOID), objects.OID{}), blobOID + "\n"},
	}
	for _, tc := range tests {
		if got := string(EncodeShallow(tc.in)); got != tc.want {
			t.Errorf("%s: EncodeShallow = %q, want %q", tc.id, got, tc.want)
		}
	}
	// encode-not-an-oid: "HEAD" never becomes an OID to encode.
	if _, err := objects.ParseOID("HEAD"); !objects.HasReason(err, objects.ReasonOidMalformed) {
		t.Fatalf("ParseOID(HEAD) = %v", err)
	}
}
