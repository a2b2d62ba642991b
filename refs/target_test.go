package refs

import (
	"testing"

	"github.com/tinehq/tine/objects"
)

// Envelopes of conformance vector file 24-refs (ref.target cases).
const (
	envAnnotation = `{"encoding":"json","schema":1,"type":"annotation"}` + "\n" +
		`{"compatibility":"run-metadata-v1","target_id":"run:sha256:e88fa867238109c11d29405ab0f08617ac460b2c6a5e3b07d8eee65b0b0a45c6","value":{"metadata":{},"tags":["a"]}}`
	envRun = `{"encoding":"json","schema":1,"type":"run"}` + "\n" +
		`{"events":["event:sha256:49501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7","event:sha256:e5de70c30d002e683da10de56bc0afd83a9df2825413920a6575f5dfedd4c57d"],"manifests":{"transcript":"blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008"},"roots":["event:sha256:49501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7"],"status":"completed","tips":["event:sha256:e5de70c30d002e683da10de56bc0afd83a9df2825413920a6575f5dfedd4c57d"]}`
	envBlob  = `{"encoding":"raw","schema":1,"type":"blob"}` + "\nhello\n"
	envEvent = `{"encoding":"json","schema":1,"type":"event"}` + "\n" + `{"cost":0,"kind":"model","parent_ids":[]}`
	runHex   = "e88fa867238109c11d29405ab0f08617ac460b2c6a5e3b07d8eee65b0b0a45c6"
)

func decode(t *testing.T, env string) *objects.Object {
	t.Helper()
	o, err := objects.DecodeEnvelope(objects.SHA256, []byte(env))
	if err != nil {
		t.Fatalf("DecodeEnvelope: %v", err)
	}
	return o
}

func TestCheckTarget(t *testing.T) {
	tests := []struct {
		id, name, env, oid string
		reason             objects.Reason
	}{
		{"annotations-name-matches-run", "annotations/" + runHex, envAnnotation, "annotation:sha256:353bdcfcb6e3f4bf5c938aedac942dd643ebb37392c2c26cfd128ef007edfb07", ""},
		{"annotations-name-mismatch", "annotations/0000000000000000000000000000000000000000000000000000000000000000", envAnnotation, "", objects.ReasonRefAnnotationNameMismatch},
		{"annotations-points-at-a-run", "annotations/" + runHex, envRun, "", objects.ReasonRefTargetType},
		{"experiments-points-at-a-blob", "experiments/alpha", envBlob, "", objects.ReasonRefTargetType},
		{"heads-points-at-a-run", "heads/main", envRun, "run:sha256:" + runHex, ""},
		{"heads-points-at-an-event", "heads/main", envEvent, "", objects.ReasonRefTargetType},
		{"promotions-points-at-a-run", "refs/promotions/prod", envRun, "", ""},
		{"tags-take-a-blob", "tags/v1", envBlob, "", ""},
		{"remotes-take-an-event", "remotes/origin/x", envEvent, "", ""},
		{"annotation-nested-name", "annotations/" + runHex + "/x", envAnnotation, "", objects.ReasonRefAnnotationNameMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			o := decode(t, tc.env)
			if tc.oid != "" && o.ID.String() != tc.oid {
				t.Fatalf("vector object id %s, want %s", o.ID, tc.oid)
			}
			err := CheckTarget(tc.name, o)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("CheckTarget: %v", err)
				}
				return
			}
			if r, _ := objects.ReasonOf(err); r != tc.reason {
				t.Fatalf("CheckTarget = %v, want %s", err, tc.reason)
			}
		})
	}
	// tags-untyped-still-parses: the oid must parse before any type rule.
	if _, err := objects.ParseOID("tags/not-an-oid"); !objects.HasReason(err, objects.ReasonOidMalformed) {
		t.Fatalf("ParseOID(tags/not-an-oid) = %v", err)
	}
	// An annotation whose target is not a run cannot be named after one.
	v, _ := objects.ParseJSON([]byte(`{"target_id":"event:sha256:`+runHex+`"}`), objects.ParseOptions{})
	ann := &objects.Object{Type: objects.TypeAnnotation, Value: v}
	if err := CheckTarget("annotations/"+runHex, ann); !objects.HasReason(err, objects.ReasonRefAnnotationNameMismatch) {
		t.Fatalf("annotation of an event: %v", err)
	}
	if CheckTarget("heads/x", nil) == nil {
		t.Fatal("nil target accepted")
	}
}
