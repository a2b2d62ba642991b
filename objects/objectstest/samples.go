// Package objectstest is the shared test suite every objects.Store
// implementation runs: put/get round trips for all five types, idempotent
// puts, Has, ErrNotFound, sorted and complete enumeration (whole and by
// type), concurrency and, where the store can be damaged on purpose,
// corruption detection. RunFaults is the fault-injection suite for a store
// whose file operations can fail on demand (Faults), and FaultStore fails
// a store's calls for tests of the layers above it.
package objectstest

import (
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
)

// Corrupter is implemented by stores (or test wrappers around them) that
// can damage a stored object in place, so the suite can check that a read
// of a corrupt object fails. Corrupt flips the bits of the last stored byte
// of id, which lies in the body of any object with a non-empty body.
type Corrupter interface {
	Corrupt(id objects.OID) error
}

// member builds one JSON object member.
func member(k string, v objects.Value) objects.Member { return objects.Member{Key: k, Value: v} }

// jsonObj builds a JSON object value from members.
func jsonObj(ms ...objects.Member) objects.Value {
	if ms == nil {
		ms = []objects.Member{}
	}
	return objects.Value{Kind: objects.KindObject, Object: ms}
}

// Samples returns one object of each of the five types, plus blobs with an
// empty body and with LF and NUL bytes, all of hash profile a. The JSON
// payloads are shaped like real ones, but stores do not check payload rules.
func Samples(t testing.TB, a objects.Algo) []*objects.Object {
	t.Helper()
	blob := objects.NewBlob(a, []byte("hello\n"))
	event := mustJSON(t, a, objects.TypeEvent, jsonObj(
		member("cost", objects.Int(0)),
		member("kind", objects.String("model")),
		member("parent_ids", objects.Array()),
	))
	run := mustJSON(t, a, objects.TypeRun, jsonObj(
		member("events", objects.Array(objects.String(event.ID.String()))),
		member("roots", objects.Array(objects.String(event.ID.String()))),
		member("tips", objects.Array(objects.String(event.ID.String()))),
	))
	att := mustJSON(t, a, objects.TypeAttestation, jsonObj(
		member("claim", jsonObj(member("kind", objects.String("evaluation")))),
		member("target", objects.String(run.ID.String())),
	))
	ann := mustJSON(t, a, objects.TypeAnnotation, jsonObj(
		member("name", objects.String("note")),
		member("target", objects.String(run.ID.String())),
		member("value", objects.String("ünïcödé ✓")),
	))
	return []*objects.Object{
		blob, event, run, att, ann,
		objects.NewBlob(a, nil),
		objects.NewBlob(a, []byte("a\nb\x00c\n\n")),
	}
}

// Blobs returns n distinct blobs of hash profile a, named by seed and index.
func Blobs(a objects.Algo, seed string, n int) []*objects.Object {
	out := make([]*objects.Object, n)
	for i := range out {
		out[i] = objects.NewBlob(a, fmt.Appendf(nil, "%s blob %d\n", seed, i))
	}
	return out
}

// mustJSON builds a JSON object or fails the test.
func mustJSON(t testing.TB, a objects.Algo, typ objects.Type, v objects.Value) *objects.Object {
	t.Helper()
	o, err := objects.NewJSONObject(a, typ, 1, v)
	if err != nil {
		t.Fatalf("build %s sample: %v", typ, err)
	}
	return o
}

// otherAlgo returns the hash profile a store of profile a does not use.
func otherAlgo(a objects.Algo) objects.Algo {
	if a == objects.SHA256 {
		return objects.BLAKE3
	}
	return objects.SHA256
}
