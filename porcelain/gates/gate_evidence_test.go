package gates

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/memory"
)

// sampleEvidence is a failing command result with every optional field set.
func sampleEvidence() *gate.Evidence {
	code, val := 1, 71.5
	return &gate.Evidence{
		ConstraintID: "tests", Kind: gate.KindMetric, Enforcement: gate.Required, Verdict: gate.Fail,
		Message: "Metric 71.5 does not satisfy gte 80", InputDigest: strings.Repeat("ab", 32),
		Category: gate.CategoryConstraint, Command: []string{"go", "test", "-cover"}, ExitCode: &code,
		Value: &val, Details: map[string]string{"operator": "gte"}, Output: []byte("FAIL x\n"),
		Attempts: []gate.Attempt{{Number: 1, ExitCode: &code, Output: []byte("FAIL x\n"),
			Started: time.Unix(1700000000, 5e6).UTC(), Duration: 1500 * time.Millisecond}},
		Findings: []gate.Finding{{Message: "m", FilePath: "a.go", Line: 3}},
		Started:  time.Unix(1700000000, 5e6).UTC(), Duration: 1500 * time.Millisecond,
	}
}

func TestGateEvidenceRoundTrip(t *testing.T) {
	ctx := context.Background()
	ev := sampleEvidence()
	want, err := ev.Digest()
	if err != nil {
		t.Fatal(err)
	}
	w, rec, err := buildGateEvent(ctx, objects.BLAKE3, ev, gate.PhaseStop, gateDigestParts{contract: "c", checkout: "k", files: "f", watched: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Digest != want {
		t.Fatalf("stored digest %s, want %s (storing changed the evidence)", rec.Digest, want)
	}
	st := memory.New(objects.BLAKE3)
	for _, o := range []*objects.Object{w.blob, w.event} {
		if err := st.Put(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	got, err := DecodeGateEvidence(ctx, st, w.event.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Digest != want || string(got.Evidence.Output) != "FAIL x\n" || got.Phase != gate.PhaseStop || got.WatchedFiles != 2 {
		t.Fatalf("decoded %+v", got)
	}
}

func TestGateEvidenceFailsClosed(t *testing.T) {
	ctx := context.Background()
	w, _, err := buildGateEvent(ctx, objects.BLAKE3, sampleEvidence(), gate.PhaseStop, gateDigestParts{})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := w.event.Value.Get(gateEvidenceMember)
	cases := map[string]objects.Value{
		// A forged pass without a matching evidence digest.
		"verdict": setMember(body, "verdict", objects.String("pass")),
		"unknown": objects.ObjectValue(append(append([]objects.Member{}, body.Object...), m("extra", objects.Int(1)))...),
		"type":    setMember(body, "exit_code", objects.String("1")),
		"tail":    setMember(body, "output_tail", objects.String("inline")),
		"enum":    setMember(body, "enforcement", objects.String("optional")),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			pl := setMember(w.event.Value, gateEvidenceMember, b)
			o, err := objects.NewJSONObject(objects.BLAKE3, objects.TypeEvent, 1, pl)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := decodeGateEvent(o, w.blob); !errors.Is(err, gate.ErrEvidence) {
				t.Fatalf("decode accepted a tampered body (%s): err %v", name, err)
			}
		})
	}
	other := objects.NewBlob(objects.BLAKE3, []byte("other"))
	if _, err := decodeGateEvent(w.event, other); !errors.Is(err, gate.ErrEvidence) {
		t.Fatalf("decode accepted the wrong output blob: %v", err)
	}
}
