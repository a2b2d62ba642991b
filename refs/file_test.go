package refs

import (
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

const blobOID = "blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008"

// Cases of conformance vectors 24-refs (ref.file) and 16-bounds.
func TestParseRefFile(t *testing.T) {
	tests := []struct {
		id, in string
		reason objects.Reason
	}{
		{"cr-only", blobOID + "\r", objects.ReasonRefFileNotCanonical},
		{"internal-space", blobOID + " \n", objects.ReasonRefFileNotCanonical},
		{"not-an-oid", "blob:sha256:not-hex\n", objects.ReasonOidMalformed},
		{"not-ascii", "blob:sha256:\u00e9\n", objects.ReasonRefFileNotAscii},
		{"oid-bare", blobOID, ""},
		{"oid-crlf", blobOID + "\r\n", ""},
		{"oid-lf", blobOID + "\n", ""},
		{"trailing-garbage", blobOID + "\nstale\n", objects.ReasonRefFileNotCanonical},
		{"bounds.257-bytes", strings.Repeat("a", 257), objects.ReasonRefFileOversized},
		{"leading-space", " " + blobOID + "\n", objects.ReasonRefFileNotCanonical},
		{"two-lfs", blobOID + "\n\n", objects.ReasonRefFileNotCanonical},
		{"tab", blobOID + "\t", objects.ReasonRefFileNotCanonical},
		{"nul", blobOID + "\x00", objects.ReasonRefFileNotCanonical},
		{"empty", "", objects.ReasonOidMalformed},
		{"uppercase-hex", strings.ToUpper(blobOID[12:]), objects.ReasonOidMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			id, err := ParseRefFile([]byte(tc.in))
			if tc.reason == "" {
				if err != nil || id.String() != blobOID {
					t.Fatalf("ParseRefFile(%q) = %v, %v", tc.in, id, err)
				}
				return
			}
			if r, _ := objects.ReasonOf(err); r != tc.reason {
				t.Fatalf("ParseRefFile(%q) = %v, %v; want %s", tc.in, id, err, tc.reason)
			}
		})
	}
}

func TestEncodeRefFile(t *testing.T) {
	id, err := objects.ParseOID(blobOID)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(EncodeRefFile(id)); got != blobOID+"\n" {
		t.Fatalf("EncodeRefFile = %q", got)
	}
}
