package objectstest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// RunChain returns n run snapshots of one run appended one event at a time
// (snapshot i lists events 0..i), shaped like the runs tine writes, so a
// store that delta-encodes runs (storage packs) builds delta chains from
// them.
func RunChain(t testing.TB, a objects.Algo, n int) []*objects.Object {
	t.Helper()
	var ids []objects.Value
	out := make([]*objects.Object, n)
	for i := range n {
		ev := objects.NewBlob(a, fmt.Appendf(nil, "event %d", i)) // any oid will do
		ids = append(ids, objects.String(strings.Replace(ev.ID.String(), "blob:", "event:", 1)))
		out[i] = mustJSON(t, a, objects.TypeRun, jsonObj(
			member("created_at", objects.Int(1700000000)),
			member("events", objects.Array(ids...)),
			member("roots", objects.Array(ids[0])),
			member("status", objects.String("running")),
			member("tips", objects.Array(ids[i])),
		))
	}
	return out
}

// testRunChain stores a chain of run snapshots one Put at a time, reads
// them back, and, for a store that can be damaged on purpose, damages one
// in the middle: that one is an error naming it, and every other snapshot
// (some may be stored as deltas on it) is either itself, byte for byte, or
// an error, never another object's bytes.
func testRunChain(t *testing.T, s objects.Store) {
	ctx := t.Context()
	chain := RunChain(t, s.Algo(), 40)
	for _, o := range chain {
		put(t, s, o)
	}
	for _, o := range chain {
		mustGet(t, s, o)
	}
	c, ok := s.(Corrupter)
	if !ok {
		return
	}
	bad := chain[20]
	if err := c.Corrupt(bad.ID); err != nil {
		t.Fatalf("Corrupt(%s): %v", bad.ID, err)
	}
	if got, err := s.Get(ctx, bad.ID); err == nil || got != nil || !strings.Contains(err.Error(), bad.ID.String()) {
		t.Fatalf("Get of corrupt %s = %v, %v; want an error naming it", bad.ID, got, err)
	}
	for _, o := range chain {
		got, err := s.Get(ctx, o.ID)
		if err == nil && (got.ID != o.ID || !bytes.Equal(got.Stored(), o.Stored())) {
			t.Fatalf("Get(%s) returned other bytes", o.ID)
		}
	}
}
