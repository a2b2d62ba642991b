package refs

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

func FuzzParseRefFile(f *testing.F) {
	for _, s := range []string{blobOID, blobOID + "\n", blobOID + "\r\n", blobOID + "\r", blobOID + " \n", "blob:sha256:\u00e9\n", "", strings.Repeat("a", 257)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		id, err := ParseRefFile(b)
		if err != nil {
			if _, ok := objects.ReasonOf(err); !ok {
				t.Fatalf("error without a reason: %v", err)
			}
			return
		}
		enc := EncodeRefFile(id)
		if !bytes.Equal(bytes.TrimRight(b, "\r\n"), enc[:len(enc)-1]) {
			t.Fatalf("accepted %q but writes %q", b, enc)
		}
		if back, err := ParseRefFile(enc); err != nil || back != id {
			t.Fatalf("round trip %q: %v", enc, err)
		}
	})
}

func FuzzParseReflogRow(f *testing.F) {
	f.Add([]byte(`{"actor":"local","new":"` + runOID + `","old":null,"ref":"heads/main","time_ns":"1"}` + "\n"))
	f.Add([]byte(`{"actor":"\u00e9","new":"` + runOID + `","old":"` + eventOID + `","ref":"tags/v1","time_ns":"9007199254740993"}` + "\n"))
	f.Add([]byte(`{"actor":"local","new":"HEAD","old":null,"ref":"heads/main","time_ns":1}` + "\n"))
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseReflogRow(b)
		if err != nil {
			return
		}
		enc, err := EncodeReflogRow(e)
		if err != nil || !bytes.Equal(enc, b) {
			t.Fatalf("accepted %q but writes %q (%v)", b, enc, err)
		}
	})
}

func FuzzParseShallow(f *testing.F) {
	for _, s := range []string{"", blobOID + "\n", blobOID + "\n" + eventOID, eventOID + "\n" + blobOID + "\n", blobOID + "\r\n", "\n", blobOID + "\n" + blobOID + "\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ids, err := ParseShallow(b)
		if err != nil {
			if _, ok := objects.ReasonOf(err); !ok {
				t.Fatalf("error without a reason: %v", err)
			}
			return
		}
		enc := EncodeShallow(ids)
		back, err := ParseShallow(enc)
		if err != nil || len(back) != len(ids) {
			t.Fatalf("round trip of %q: %q, %v", b, enc, err)
		}
		for i := range ids {
			if back[i] != ids[i] {
				t.Fatalf("round trip changed %v to %v", ids, back)
			}
		}
	})
}

func FuzzNormalizeName(f *testing.F) {
	for _, s := range []string{"heads/main", "refs/tags/v1", "heads/Main", "heads/a..b", "heads/con.txt", "annotations/" + runHex, "heads/na\u00efve", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := NormalizeName(s)
		if err != nil {
			if _, ok := objects.ReasonOf(err); !ok {
				t.Fatalf("error without a reason: %v", err)
			}
			return
		}
		if n2, err := NormalizeName(n); err != nil || n2 != n {
			t.Fatalf("normalized %q is not a fixed point: %q, %v", n, n2, err)
		}
		if n != strings.TrimPrefix(s, "refs/") || len(n) > MaxNameBytes {
			t.Fatalf("NormalizeName(%q) = %q", s, n)
		}
	})
}
