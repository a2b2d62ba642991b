package objects

import (
	"errors"
	"strings"
	"testing"
)

func TestLinksVectors(t *testing.T) { runPayloadCases(t, linksVectors) }

// linksVectors transcribes the links.extract cases of 15-links.
var linksVectors = []payloadCase{
	{"links.annotation.previous-annotation", "links.extract", env(hAnn, `{"compatibility":"run-metadata-v1","previous_id":"`+vA1+`","target_id":"`+vRun+`","value":{"metadata":{},"tags":["a","b"]}}`),
		[]string{vA1, vRun}, nil, nil, "",
		[]string{vA1, vRun}, "", ""},
	{"links.annotation.previous-not-an-annotation", "links.extract", env(hAnn, `{"previous_id":"`+vR1+`","target_id":"`+vR1+`"}`),
		nil, nil, nil, "",
		nil, "", "link.annotation-previous-not-annotation"},
	{"links.annotation.target-absent", "links.extract", env(hAnn, `{"value":{"tags":[]}}`),
		nil, nil, nil, "",
		[]string{}, "", ""},
	{"links.annotation.target-any-type", "links.extract", env(hAnn, `{"target_id":"`+vE1+`"}`),
		[]string{vE1, vHello}, nil, nil, "",
		[]string{vE1}, "", ""},
	{"links.attestation.evidence-any-type", "links.extract", env(hAtt, `{"evidence_ids":["`+vHello+`","`+vE1+`"],"signer":"x","target_id":"`+vR1+`"}`),
		[]string{vHello, vE1}, []string{vR1}, nil, "",
		[]string{vHello, vE1, vR1}, "", ""},
	{"links.attestation.evidence-not-a-list", "links.extract", env(hAtt, `{"evidence_ids":{"a":1},"signer":"x","target_id":"`+vR1+`"}`),
		nil, nil, nil, "",
		nil, "", "link.evidence-not-list"},
	{"links.attestation.target-absent", "links.extract", env(hAtt, `{"claim":{},"signer":"x"}`),
		nil, nil, nil, "",
		nil, "", "link.attestation-target-not-run"},
	{"links.attestation.target-not-a-run", "links.extract", env(hAtt, `{"signer":"x","target_id":"`+vE1+`"}`),
		nil, nil, nil, "",
		nil, "", "link.attestation-target-not-run"},
	{"links.attestation.target-run", "links.extract", env(hAtt, `{"claim":{"result":"pass"},"evidence_ids":[],"signature":null,"signer":"release-bot","target_id":"`+vR1+`"}`),
		nil, []string{vR1}, nil, "",
		[]string{vR1}, "", ""},
	{"links.blob.has-no-links", "links.extract", env(hBlob, "hello\n"),
		nil, nil, nil, "",
		[]string{}, "", ""},
	{"links.event.artifact-blob-is-a-run", "links.extract", env(hEvent, `{"artifact_blob":"`+vR1+`","kind":"model"}`),
		nil, nil, nil, "",
		nil, "", "link.event-blob-not-blob"},
	{"links.event.artifact-blob-reserved", "links.extract", env(hEvent, `{"artifact_blob":"`+vHello+`","kind":"model"}`),
		[]string{vHello}, nil, nil, "",
		[]string{vHello}, "", ""},
	{"links.event.causal-ids", "links.extract", env(hEvent, `{"causal_ids":["`+vE1+`"],"kind":"tool"}`),
		[]string{vE1, vHello}, nil, nil, "",
		[]string{vE1}, "", ""},
	{"links.event.empty-payload", "links.extract", env(hEvent, `{}`),
		nil, nil, nil, "",
		[]string{}, "", ""},
	{"links.event.falsy-blob-not-a-link", "links.extract", env(hEvent, `{"input_blob":"","kind":"model"}`),
		nil, nil, nil, "",
		[]string{}, "", ""},
	{"links.event.input-and-output-blob", "links.extract", env(hEvent, `{"cost":0,"input_blob":"`+vHello+`","kind":"model","output_blob":"`+vHello+`","parent_ids":[]}`),
		[]string{vHello}, nil, nil, "",
		[]string{vHello, vHello}, "", ""},
	{"links.event.input-blob-is-an-event", "links.extract", env(hEvent, `{"input_blob":"`+vE1+`","kind":"model"}`),
		nil, nil, nil, "",
		nil, "", "link.event-blob-not-blob"},
	{"links.event.output-blob-is-an-object", "links.extract", env(hEvent, `{"kind":"model","output_blob":{"a":1}}`),
		nil, nil, nil, "",
		nil, "", "link.event-blob-not-blob"},
	{"links.event.parent-ids-duplicate", "links.extract", env(hEvent, `{"kind":"model","parent_ids":["`+vE1+`","`+vE1+`"]}`),
		nil, nil, nil, "",
		nil, "", "link.parent-ids-duplicate"},
	{"links.event.parent-ids-not-a-list", "links.extract", env(hEvent, `{"kind":"model","parent_ids":"`+vE1+`"}`),
		nil, nil, nil, "",
		nil, "", "link.parent-ids-not-events"},
	{"links.event.parent-ids-present", "links.extract", env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`),
		[]string{vE1, vHello}, nil, nil, "",
		[]string{vE1}, "", ""},
	{"links.event.parent-ids-shallow", "links.extract", env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`),
		nil, []string{vE1}, nil, "",
		[]string{vE1}, "", ""},
	{"links.event.parent-not-an-event", "links.extract", env(hEvent, `{"kind":"model","parent_ids":["`+vHello+`"]}`),
		nil, nil, nil, "",
		nil, "", "link.parent-ids-not-events"},
	{"links.missing-object", "links.extract", env(hEvent, `{"cost":0,"kind":"tool","parent_ids":["`+vE1+`"]}`),
		[]string{}, nil, nil, "",
		nil, "", "link.missing-object"},
	{"links.run.events-duplicate", "links.extract", env(hRun, `{"events":["`+vE1+`","`+vE1+`"]}`),
		nil, nil, nil, "",
		nil, "", "link.run-events-invalid"},
	{"links.run.events-not-event-ids", "links.extract", env(hRun, `{"events":["`+vHello+`"]}`),
		nil, nil, nil, "",
		nil, "", "link.run-events-invalid"},
	{"links.run.events-roots-tips", "links.extract", env(hRun, `{"events":["`+vE1+`","`+vE2+`"],"manifests":{"transcript":"`+vHello+`"},"roots":["`+vE1+`"],"status":"completed","tips":["`+vE2+`"]}`),
		[]string{vE1, vE2, vHello}, nil, nil, "",
		[]string{vHello, vE1, vE1, vE2, vE2}, "", ""},
	{"links.run.manifests-not-an-object", "links.extract", env(hRun, `{"manifests":[["transcript","`+vHello+`"]]}`),
		nil, nil, nil, "",
		nil, "", "link.run-manifests-not-object"},
	{"links.run.manifests-value-not-a-blob", "links.extract", env(hRun, `{"manifests":{"transcript":"`+vE1+`"}}`),
		nil, nil, nil, "",
		nil, "", "link.run-blob-not-blob"},
	{"links.run.manifests-values-are-blobs", "links.extract", env(hRun, `{"manifests":{"transcript":"`+vHello+`"}}`),
		[]string{vHello}, nil, nil, "",
		[]string{vHello}, "", ""},
	{"links.run.patch-blob-empty-string", "links.extract", env(hRun, `{"patch_blob":""}`),
		nil, nil, nil, "",
		[]string{}, "", ""},
	{"links.run.patch-blob-is-an-object", "links.extract", env(hRun, `{"patch_blob":{"a":1}}`),
		nil, nil, nil, "",
		nil, "", "link.run-blob-not-blob"},
	{"links.run.patch-blob-suffix-rule", "links.extract", env(hRun, `{"patch_blob":"`+vHello+`"}`),
		[]string{vHello}, nil, nil, "",
		[]string{vHello}, "", ""},
	{"links.run.roots-not-subset", "links.extract", env(hRun, `{"events":["`+vE1+`"],"roots":["`+vE2+`"]}`),
		nil, nil, nil, "",
		nil, "", "link.run-roots-tips-not-subset"},
	{"links.run.tips-not-event-ids", "links.extract", env(hRun, `{"tips":["`+vHello+`"]}`),
		nil, nil, nil, "",
		nil, "", "link.run-roots-tips-invalid"},
	{"links.run.tips-not-subset", "links.extract", env(hRun, `{"events":["`+vE1+`"],"tips":["`+vE2+`"]}`),
		nil, nil, nil, "",
		nil, "", "link.run-roots-tips-not-subset"},
}

// mustObject builds an object of type t from a JSON body for algo a.
func mustObject(t testing.TB, a Algo, typ Type, body string) *Object {
	t.Helper()
	o, err := NewObjectFromBody(a, typ, 1, []byte(body))
	if err != nil {
		t.Fatalf("%s body %s: %v", typ, body, err)
	}
	return o
}

func TestLinksEdges(t *testing.T) {
	b3Event := BLAKE3.Derive(TypeEvent, 1, []byte(`{}`)).String()
	b3Blob := BLAKE3.Derive(TypeBlob, 1, []byte("x")).String()
	cases := []struct {
		name  string
		algo  Algo
		typ   Type
		body  string
		links int
		want  string // reason, or "" to accept with links entries
	}{
		{"falsy parent_ids string", SHA256, TypeEvent, `{"parent_ids":""}`, 0, ""},
		{"falsy parent_ids object", SHA256, TypeEvent, `{"parent_ids":{}}`, 0, ""},
		{"null parent_ids", SHA256, TypeEvent, `{"parent_ids":null}`, 0, ""},
		{"parent_ids truthy object", SHA256, TypeEvent, `{"parent_ids":{"a":1}}`, 0, "link.parent-ids-not-events"},
		{"parent_ids non-string entry", SHA256, TypeEvent, `{"parent_ids":[1]}`, 0, "link.parent-ids-not-events"},
		{"parent_ids malformed oid", SHA256, TypeEvent, `{"parent_ids":["event:sha256:ABC"]}`, 0, "oid.malformed"},
		{"causal_ids duplicate", SHA256, TypeEvent, `{"causal_ids":["` + vE1 + `","` + vE1 + `"]}`, 0, "link.parent-ids-duplicate"},
		{"parent and causal may repeat each other", SHA256, TypeEvent, `{"causal_ids":["` + vE1 + `"],"parent_ids":["` + vE1 + `"]}`, 2, ""},
		{"causal_ids not events", SHA256, TypeEvent, `{"causal_ids":["` + vR1 + `"]}`, 0, "link.parent-ids-not-events"},
		{"event payload not an object", SHA256, TypeEvent, `[]`, 0, "link.parent-ids-not-events"},
		{"event with bad metrics", SHA256, TypeEvent, `{"cost":"x"}`, 0, "metrics.meter-not-finite"},
		{"blake3 event names a sha256 parent", BLAKE3, TypeEvent, `{"parent_ids":["` + vE1 + `"]}`, 0, "oid.malformed"},
		{"sha256 event names a blake3 parent", SHA256, TypeEvent, `{"parent_ids":["` + b3Event + `"]}`, 0, "oid.malformed"},
		{"blake3 event names blake3 oids", BLAKE3, TypeEvent, `{"input_blob":"` + b3Blob + `","parent_ids":["` + b3Event + `"]}`, 2, ""},
		{"input_blob zero is absent", SHA256, TypeEvent, `{"input_blob":0}`, 0, ""},
		{"output_blob true", SHA256, TypeEvent, `{"output_blob":true}`, 0, "link.event-blob-not-blob"},
		{"roots duplicate", SHA256, TypeRun, `{"events":["` + vE1 + `"],"roots":["` + vE1 + `","` + vE1 + `"]}`, 0, "link.run-roots-tips-invalid"},
		{"events not a list", SHA256, TypeRun, `{"events":"` + vE1 + `"}`, 0, "link.run-events-invalid"},
		{"falsy manifests", SHA256, TypeRun, `{"manifests":[]}`, 0, ""},
		{"manifests string", SHA256, TypeRun, `{"manifests":"x"}`, 0, "link.run-manifests-not-object"},
		{"manifest empty string value", SHA256, TypeRun, `{"manifests":{"a":""}}`, 0, "oid.malformed"},
		{"manifest null value", SHA256, TypeRun, `{"manifests":{"a":null}}`, 0, "link.run-blob-not-blob"},
		{"legacy_blob names an event", SHA256, TypeRun, `{"legacy_blob":"` + vE1 + `"}`, 0, "link.run-blob-not-blob"},
		{"blob suffix needs the underscore", SHA256, TypeRun, `{"blob":5,"xblob":5}`, 0, ""},
		{"two blob fields and a manifest", SHA256, TypeRun, `{"a_blob":"` + vHello + `","b_blob":"` + vHello + `","manifests":{"t":"` + vHello + `"}}`, 3, ""},
		{"run payload not an object", SHA256, TypeRun, `"x"`, 0, "link.run-events-invalid"},
		{"attestation empty target", SHA256, TypeAttestation, `{"target_id":""}`, 0, "link.attestation-target-not-run"},
		{"attestation target not a string", SHA256, TypeAttestation, `{"target_id":5}`, 0, "link.attestation-target-not-run"},
		{"attestation evidence null", SHA256, TypeAttestation, `{"evidence_ids":null,"target_id":"` + vR1 + `"}`, 0, "link.evidence-not-list"},
		{"attestation evidence entry not a string", SHA256, TypeAttestation, `{"evidence_ids":[5],"target_id":"` + vR1 + `"}`, 0, "oid.malformed"},
		{"attestation evidence may repeat", SHA256, TypeAttestation, `{"evidence_ids":["` + vR1 + `","` + vR1 + `"],"target_id":"` + vR1 + `"}`, 3, ""},
		{"attestation payload not an object", SHA256, TypeAttestation, `[]`, 0, "link.attestation-target-not-run"},
		{"annotation target not a string", SHA256, TypeAnnotation, `{"target_id":5}`, 0, "oid.malformed"},
		{"annotation falsy previous", SHA256, TypeAnnotation, `{"previous_id":"","target_id":"` + vHello + `"}`, 1, ""},
		{"annotation previous not a string", SHA256, TypeAnnotation, `{"previous_id":[1]}`, 0, "link.annotation-previous-not-annotation"},
		{"annotation evidence not a list", SHA256, TypeAnnotation, `{"evidence_ids":"` + vE1 + `"}`, 0, "link.evidence-not-list"},
		{"annotation payload not an object", SHA256, TypeAnnotation, `1`, 0, "link.evidence-not-list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := mustObject(t, c.algo, c.typ, c.body)
			links, err := Links(o)
			if c.want != "" {
				wantReason(t, err, c.want)
				if !strings.Contains(err.Error(), o.ID.String()) {
					t.Fatalf("error %q does not name the object", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if len(links) != c.links {
				t.Fatalf("links %v, want %d entries", links, c.links)
			}
		})
	}
}

func TestLinksBlobHasNone(t *testing.T) {
	links, err := Links(NewBlob(BLAKE3, []byte(`{"parent_ids":["x"]}`)))
	if err != nil || len(links) != 0 {
		t.Fatalf("blob links %v, %v", links, err)
	}
}

func TestLinksSelfLink(t *testing.T) {
	o := mustObject(t, SHA256, TypeEvent, `{"parent_ids":["`+vE1+`"]}`)
	o.ID = mustOID(t, vE1) // forge the impossible: an event naming itself
	_, err := Links(o)
	wantReason(t, err, "link.missing-object")
}

func TestCheckLinksExist(t *testing.T) {
	repo := newTestRepo(t, SHA256, []string{vR1}, []string{vE2}, [][]byte{env(hBlob, "hello\n")})
	ids := []OID{mustOID(t, vHello), mustOID(t, vR1), mustOID(t, vE2)}
	if err := CheckLinksExist(ids, repo); err != nil {
		t.Fatalf("present, stored and shallow links: %v", err)
	}
	// Without PresenceChecker only readable objects and shallow oids count.
	err := CheckLinksExist(ids, resolveOnly{repo})
	wantReason(t, err, "link.missing-object")
	if !strings.Contains(err.Error(), vR1) {
		t.Fatalf("error %q does not name the missing link", err)
	}
	if err := CheckLinksExist(nil, repo); err != nil {
		t.Fatal(err)
	}
	// A store failure is passed through, not turned into a missing link.
	boom := errors.New("disk on fire")
	repo.fail[mustOID(t, vHello)] = boom
	if err := CheckLinksExist(ids[:1], resolveOnly{repo}); !errors.Is(err, boom) || HasReason(err, ReasonLinkMissingObject) {
		t.Fatalf("got %v, want the store failure", err)
	}
}

// TestLinksLongListDuplicate covers the set-based duplicate check used for
// lists longer than the pairwise threshold.
func TestLinksLongListDuplicate(t *testing.T) {
	var ids []string
	for i := range 40 {
		ids = append(ids, SHA256.Derive(TypeEvent, 1, []byte{byte(i)}).String())
	}
	body := func(ids []string) string { return `{"events":["` + strings.Join(ids, `","`) + `"]}` }
	links, err := Links(mustObject(t, SHA256, TypeRun, body(ids)))
	if err != nil || len(links) != 40 {
		t.Fatalf("40 distinct events: %d links, %v", len(links), err)
	}
	_, err = Links(mustObject(t, SHA256, TypeRun, body(append(ids, ids[3]))))
	wantReason(t, err, "link.run-events-invalid")
	if !strings.Contains(err.Error(), "entries 3 and 40") {
		t.Fatalf("error %q does not locate the duplicate", err)
	}
}
