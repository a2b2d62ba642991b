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
