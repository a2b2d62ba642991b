package index

import (
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestCatalogHoldsForks: the catalog keeps each run's forked_from as the
// porcelain reads it (tine graph shows it without reading the run), held
// whole only when it can be: a reason over MaxStringBytes or an oid of
// another hash is left to the run object. What it holds survives the
// file (a second load decodes it) and a rebuild writes the same bytes.
func TestCatalogHoldsForks(t *testing.T) {
	r := newTestRepo(t, objects.BLAKE3)
	e1 := r.event("plan", "")
	e2 := r.event("test", "", e1)
	main := r.run([]objects.OID{e1})
	fork := func(reason objects.Value, run, event string) objects.OID {
		m := []objects.Member{{Key: "run", Value: str(run)}, {Key: "event", Value: str(event)}}
		if reason.Kind == objects.KindString {
			m = append(m, objects.Member{Key: "reason", Value: reason})
		}
		return r.run([]objects.OID{e1, e2}, objects.Member{Key: "forked_from", Value: objects.ObjectValue(m...)})
	}
	other := objects.NewBlob(objects.SHA256, []byte("x")).ID.String()
	otherRun := "run:sha256:" + other[len("blob:sha256:"):]
	cases := []struct {
		ref     string
		run     objects.OID
		fork    *RunFork
		inexact bool
	}{
		{"heads/main", main, nil, false},
		{"heads/reason", fork(str("try a larger model"), main.String(), e1.String()), &RunFork{Run: main, Event: e1, Reason: "try a larger model"}, false},
		{"heads/noreason", fork(objects.Value{}, main.String(), e1.String()), &RunFork{Run: main, Event: e1}, false},
		{"heads/long", fork(str(strings.Repeat("r", MaxStringBytes+1)), main.String(), e1.String()), nil, true},
		{"heads/otherhash", fork(str("x"), otherRun, e1.String()), nil, true},
	}
	for _, c := range cases {
		r.setRef(c.ref, c.run)
	}
	check := func(cat *Catalog, when string) {
		t.Helper()
		for _, c := range cases {
			re, ok := cat.Run(c.run)
			if !ok {
				t.Fatalf("%s: %s not in the catalog", when, c.ref)
			}
			if re.ForkExact == c.inexact {
				t.Errorf("%s: %s: ForkExact %v", when, c.ref, re.ForkExact)
			}
			if (re.Fork == nil) != (c.fork == nil) || re.Fork != nil && *re.Fork != *c.fork {
				t.Errorf("%s: %s: fork %+v, want %+v", when, c.ref, re.Fork, c.fork)
			}
		}
	}
	cat, _ := r.catalog()
	check(cat, "built")
	built := r.fileBytes()
	cat, rep := r.catalog()
	if rep.Action != ActionFresh {
		t.Fatalf("second load: %+v", rep)
	}
	check(cat, "loaded")
	if _, err := r.ix.Rebuild(r.ctx); err != nil {
		t.Fatal(err)
	}
	if string(built) != string(r.fileBytes()) {
		t.Fatal("a rebuild wrote other bytes")
	}
}
