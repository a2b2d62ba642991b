package plumbing

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// algos are the hash profiles every repository test runs under.
var algos = []objects.Algo{objects.BLAKE3, objects.SHA256}

// forEachAlgo runs fn as a subtest per hash profile on a fresh repository.
func forEachAlgo(t *testing.T, fn func(t *testing.T, r *Repo)) {
	for _, a := range algos {
		t.Run(string(a), func(t *testing.T) { fn(t, newRepo(t, a)) })
	}
}

// newRepo initialises a repository in a temp directory.
func newRepo(t testing.TB, a objects.Algo) *Repo {
	t.Helper()
	r, _, err := Init(t.TempDir(), a)
	if err != nil {
		t.Fatalf("Init: %v", err)
	}
	return r
}

// jsonObject builds a json object of type ty from JSON text.
func jsonObject(t testing.TB, a objects.Algo, ty objects.Type, text string) *objects.Object {
	t.Helper()
	v, err := objects.ParseJSON([]byte(text), objects.ParseOptions{})
	if err != nil {
		t.Fatalf("parse %s: %v", text, err)
	}
	o, err := objects.NewJSONObject(a, ty, 1, v)
	if err != nil {
		t.Fatalf("object %s: %v", text, err)
	}
	return o
}

// put stores o.
func put(t testing.TB, r *Repo, o *objects.Object) objects.OID {
	t.Helper()
	if err := r.Objects().Put(context.Background(), o); err != nil {
		t.Fatalf("put %s: %v", o.ID, err)
	}
	return o.ID
}

// oidList spells ids as a JSON array.
func oidList(ids []objects.OID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = `"` + id.String() + `"`
	}
	return "[" + strings.Join(s, ",") + "]"
}

// putEvent stores an event with the given parents and a distinguishing
// label.
func putEvent(t testing.TB, r *Repo, label string, parents ...objects.OID) objects.OID {
	t.Helper()
	return put(t, r, jsonObject(t, r.Algo(), objects.TypeEvent,
		fmt.Sprintf(`{"kind":"model","label":%q,"parent_ids":%s}`, label, oidList(parents))))
}

// chainRun builds (not stores) a run over a linear chain of events.
func chainRun(t testing.TB, a objects.Algo, events []objects.OID) *objects.Object {
	t.Helper()
	return jsonObject(t, a, objects.TypeRun, fmt.Sprintf(`{"events":%s,"roots":%s,"tips":%s}`,
		oidList(events), oidList(events[:1]), oidList(events[len(events)-1:])))
}

// putChainRun stores n chained events and a run over them.
func putChainRun(t testing.TB, r *Repo, label string, n int) (objects.OID, []objects.OID) {
	t.Helper()
	var evs []objects.OID
	for i := 0; i < n; i++ {
		evs = append(evs, putEvent(t, r, fmt.Sprintf("%s-%d", label, i), evs[max(0, len(evs)-1):]...))
	}
	return put(t, r, chainRun(t, r.Algo(), evs)), evs
}
