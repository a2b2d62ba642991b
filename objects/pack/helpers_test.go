package pack

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tinehq/tine/objects"
)

// spTestEvent returns the i-th of a family of ~1 KiB event objects shaped
// like real ones: repeated keys, oids, numbers and prose, in canonical v3.
func spTestEvent(tb testing.TB, a objects.Algo, i int) *objects.Object {
	tb.Helper()
	r := rand.New(rand.NewPCG(uint64(i), 7))
	h := sha256.Sum256(fmt.Append(nil, i))
	p := sha256.Sum256(fmt.Append(nil, i-1))
	body := fmt.Appendf(nil, `{"attrs":{"model":"model-%d","temperature":%d,"tool":"search"},"cost":%d,`+
		`"inputs":["blob:%s:%s"],"kind":"model","metrics":{"latency_ms":%d,"tokens_in":%d,"tokens_out":%d},`+
		`"observation":"step %d: the agent read src/module_%d.py and proposed a change to handle_%d; %d of %d tests passed. %s",`+
		`"outputs":["blob:%s:%s"],"parent_ids":["event:%s:%s"],"started_at":"2025-01-%02dT10:%02d:%02dZ","status":"ok"}`,
		r.IntN(4), r.IntN(10), r.IntN(1000), a, hex.EncodeToString(h[:]), r.IntN(5000), r.IntN(100000), r.IntN(10000),
		i, r.IntN(300), r.IntN(999), r.IntN(100), 100, spTestProse(r), a, hex.EncodeToString(p[:]), a,
		hex.EncodeToString(p[:]), 1+r.IntN(28), r.IntN(60), r.IntN(60))
	o, err := objects.NewObjectFromBody(a, objects.TypeEvent, 1, body)
	if err != nil {
		tb.Fatalf("test event %d: %v", i, err)
	}
	return o
}

// spTestProse returns a few hundred bytes of varied words.
func spTestProse(r *rand.Rand) string {
	words := []string{"the", "model", "retried", "because", "a", "test", "failed", "with", "timeout",
		"assertion", "error", "in", "parser", "after", "refactor", "of", "cache", "layer", "and", "queue"}
	var b []byte
	for len(b) < 420 {
		b = append(append(b, words[r.IntN(len(words))]...), ' ')
		if r.IntN(9) == 0 {
			b = fmt.Appendf(b, "%x ", r.Uint32())
		}
	}
	return string(b)
}

// spTestObjects returns n test events plus a few blobs of profile a.
func spTestObjects(tb testing.TB, a objects.Algo, n int) []*objects.Object {
	objs := make([]*objects.Object, 0, n+3)
	for i := range n {
		objs = append(objs, spTestEvent(tb, a, i))
	}
	return append(objs, objects.NewBlob(a, nil), objects.NewBlob(a, []byte("a\nb\x00c")), objects.NewBlob(a, []byte("hello\n")))
}

// spCommit writes objs as a new pack in dir and commits it.
func spCommit(dir string, a objects.Algo, objs []*objects.Object) (string, error) {
	w, err := NewWriter(dir, a, Options{})
	if err != nil {
		return "", err
	}
	for _, o := range objs {
		if err := w.Add(o); err != nil {
			w.Abort()
			return "", err
		}
	}
	return w.Commit()
}

// spPackNames returns s.Packs(), failing the test on an error.
func spPackNames(tb testing.TB, s *Store) []string {
	tb.Helper()
	names, err := s.Packs()
	if err != nil {
		tb.Fatalf("Packs: %v", err)
	}
	return names
}

// spDamaged returns s.Damaged(), failing the test on an error.
func spDamaged(tb testing.TB, s *Store) []Damaged {
	tb.Helper()
	d, err := s.Damaged()
	if err != nil {
		tb.Fatalf("Damaged: %v", err)
	}
	return d
}

// spCurrent returns s.current(), failing the test on an error.
func spCurrent(tb testing.TB, s *Store) []*spPack {
	tb.Helper()
	ps, err := s.current()
	if err != nil {
		tb.Fatalf("opening the packs: %v", err)
	}
	return ps
}
