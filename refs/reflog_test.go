package refs

import (
	"errors"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

const (
	runOID   = "run:sha256:e88fa867238109c11d29405ab0f08617ac460b2c6a5e3b07d8eee65b0b0a45c6"
	eventOID = "event:sha256:49501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7"
	annOID   = "annotation:sha256:353bdcfcb6e3f4bf5c938aedac942dd643ebb37392c2c26cfd128ef007edfb07"
)

// Cases of conformance vectors 26-reflog and the reflog cases of 16-bounds:
// the input value as JSON text, and the expected row or reason.
func TestEncodeReflogRowVectors(t *testing.T) {
	row := func(actor, nw, old, ref, ts string) string {
		return `{"actor":"` + actor + `","new":"` + nw + `","old":` + old + `,"ref":"` + ref + `","time_ns":` + ts + `}`
	}
	a4096, a4097 := strings.Repeat("a", 4096), strings.Repeat("a", 4097)
	tests := []struct {
		id, in, want string
		reason       objects.Reason
	}{
		{"annotations-ref", row("local", annOID, "null", "annotations/"+runHex, `"1757030400000000000"`), "", ""},
		{"field-order-is-canonical", `{"time_ns":"1","ref":"heads/main","old":null,"new":"` + runOID + `","actor":"local"}`, row("local", runOID, "null", "heads/main", `"1"`), ""},
		{"first", row("local", runOID, "null", "heads/main", `"1757030400000000000"`), "", ""},
		{"new-not-an-oid", row("local", "HEAD", "null", "heads/main", `"1"`), "", objects.ReasonOidMalformed},
		{"subsequent", row("local", runOID, `"`+eventOID+`"`, "heads/main", `"1757030400000000001"`), "", ""},
		{"time-ns-as-a-number", row("local", runOID, "null", "heads/main", `1757030400000000000`), "", objects.ReasonReflogTimeNotString},
		{"time-ns-beyond-2-53", row("local", runOID, "null", "heads/main", `"9007199254740993"`), "", ""},
		{"trailing-lf", row("ci-bot", runOID, "null", "tags/v1", `"1757030400000000000"`), "", ""},
		{"bounds.actor-4096", row(a4096, runOID, "null", "heads/main", `"1"`), "", ""},
		{"bounds.actor-4097", row(a4097, runOID, "null", "heads/main", `"1"`), "", objects.ReasonReflogActorTooLong},
		{"bounds.actor-empty", row("", blobOID, "null", "heads/main", `"0"`), "", ""},
		{"actor-4096-multibyte", row(strings.Repeat("\u00e9", 4096), runOID, "null", "heads/main", `"1"`), "", ""},
		{"actor-4097-multibyte", row(strings.Repeat("\u00e9", 4097), runOID, "null", "heads/main", `"1"`), "", objects.ReasonReflogActorTooLong},
		{"old-not-an-oid", row("x", runOID, `"HEAD"`, "heads/main", `"1"`), "", objects.ReasonOidMalformed},
		{"time-leading-zero", row("x", runOID, "null", "heads/main", `"01"`), "", objects.ReasonReflogTimeNotString},
		{"time-negative", row("x", runOID, "null", "heads/main", `"-1"`), "", objects.ReasonReflogTimeNotString},
		{"bad-ref", row("x", runOID, "null", "heads/Main", `"1"`), "", objects.ReasonRefNameNotCasefolded},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			v, err := objects.ParseJSON([]byte(tc.in), objects.ParseOptions{})
			if err != nil {
				t.Fatalf("ParseJSON: %v", err)
			}
			e, err := ReflogEntryFromValue(v)
			var got []byte
			if err == nil {
				got, err = EncodeReflogRow(e)
			}
			if tc.reason != "" {
				if r, _ := objects.ReasonOf(err); r != tc.reason {
					t.Fatalf("got %q, %v; want %s", got, err, tc.reason)
				}
				return
			}
			want := tc.want
			if want == "" {
				want = tc.in
			}
			if err != nil || string(got) != want+"\n" {
				t.Fatalf("got %q, %v\nwant %q", got, err, want+"\n")
			}
			back, err := ParseReflogRow(got)
			if err != nil || back != e {
				t.Fatalf("ParseReflogRow round trip: %+v, %v", back, err)
			}
		})
	}
}

func TestParseReflogRowStrict(t *testing.T) {
	good := `{"actor":"local","new":"` + runOID + `","old":null,"ref":"heads/main","time_ns":"1"}`
	for _, tc := range []struct {
		id, in string
		want   error
	}{
		{"torn", good, ErrTornReflog},
		{"spaces", strings.Replace(good, ",", ", ", 1) + "\n", ErrMalformedReflog},
		{"unsorted", `{"new":"` + runOID + `","actor":"local","old":null,"ref":"heads/main","time_ns":"1"}` + "\n", ErrMalformedReflog},
		{"extra-key", strings.TrimSuffix(good, "}") + `,"x":1}` + "\n", ErrMalformedReflog},
		{"missing-key", `{"actor":"local","new":"` + runOID + `","old":null,"ref":"heads/main"}` + "\n", ErrMalformedReflog},
		{"two-rows", good + "\n" + good + "\n", ErrMalformedReflog},
		{"crlf", good + "\r\n", ErrMalformedReflog},
		{"not-json", "nope\n", ErrMalformedReflog},
	} {
		if _, err := ParseReflogRow([]byte(tc.in)); !errors.Is(err, tc.want) {
			t.Errorf("%s: ParseReflogRow = %v, want %v", tc.id, err, tc.want)
		}
	}
	if _, err := ParseReflogRow([]byte(good + "\n")); err != nil {
		t.Fatalf("good row: %v", err)
	}
}
