package objects

import (
	"strings"
	"testing"
	"unsafe"
)

// TestParseOIDDoesNotKeepInput: an oid parsed out of a large string (a
// run's event list) must not point into it, or every id kept keeps the
// whole string alive (log --all held each run's body through its tips).
func TestParseOIDDoesNotKeepInput(t *testing.T) {
	for _, s := range []string{
		"run:blake3:" + strings.Repeat("ab", 32),
		"event:sha256:" + strings.Repeat("0f", 32),
		"annotation:blake3:" + strings.Repeat("01", 32),
	} {
		big := s + strings.Repeat(" ", 1<<16)
		id, err := ParseOID(big[:len(s)])
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := uintptr(unsafe.Pointer(unsafe.StringData(big))), uintptr(unsafe.Pointer(unsafe.StringData(big)))+uintptr(len(big))
		for _, p := range []string{string(id.Type), string(id.Algo)} {
			if at := uintptr(unsafe.Pointer(unsafe.StringData(p))); at >= lo && at < hi {
				t.Errorf("ParseOID(%s): %q points into its input", s, p)
			}
		}
		if id.String() != s {
			t.Errorf("ParseOID(%s) = %s", s, id)
		}
	}
}

// TestOIDCompareIsStringOrder checks Compare against the order of the
// spellings for every pair of a mixed set: all five types, both hash
// profiles, digests differing in their first and last bytes, and the zero
// OID.
func TestOIDCompareIsStringOrder(t *testing.T) {
	var ids []OID
	for _, ty := range []Type{TypeBlob, TypeEvent, TypeRun, TypeAttestation, TypeAnnotation} {
		for _, a := range []Algo{SHA256, BLAKE3} {
			for _, d := range [][2]byte{{0, 0}, {0, 0xff}, {0x0a, 0}, {0xa0, 1}, {0xff, 0xff}} {
				var id OID
				id.Type, id.Algo = ty, a
				id.Digest[0], id.Digest[31] = d[0], d[1]
				ids = append(ids, id)
			}
		}
	}
	ids = append(ids, OID{})
	for _, x := range ids {
		for _, y := range ids {
			want := strings.Compare(x.String(), y.String())
			if got := x.Compare(y); (got < 0) != (want < 0) || (got > 0) != (want > 0) {
				t.Fatalf("%q.Compare(%q) = %d, string order %d", x, y, got, want)
			}
		}
	}
}
