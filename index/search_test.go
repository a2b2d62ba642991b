package index

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/tinehq/tine/objects"
)

// searchFor looks terms up in r's search index, updating it first.
func (r *testRepo) searchFor(t *testing.T, q string) ([]objects.OID, *SearchReport) {
	t.Helper()
	c, _ := r.catalog()
	si, rep, err := r.ix.Search(r.ctx, c, false)
	if err != nil || rep.SaveErr != nil {
		t.Fatal(err, rep.SaveErr)
	}
	ids, err := si.Lookup(Terms(q), FieldAll)
	if err != nil {
		t.Fatal(err)
	}
	return ids, rep
}

func TestTokenize(t *testing.T) {
	got := Terms("Hello, WORLD! x ünïcode_42 hello\xffbad " + string(make([]byte, 0)) + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	want := []string{"hello", "world", "ünïcode", "42", "bad"}
	if !slices.Equal(got, want) {
		t.Fatalf("Terms = %q, want %q", got, want)
	}
}

func TestSearchRecentFileAndMerge(t *testing.T) {
	defer func(n int) { searchRecentMin = n }(searchRecentMin)
	searchRecentMin = 2
	r := newTestRepo(t, objects.BLAKE3)
	var events []objects.OID
	add := func(word string) objects.OID {
		js := `{"kind":"tool","output":"` + word + `"}`
		if len(events) > 0 {
			js = fmt.Sprintf(`{"kind":"tool","output":%q,"parent_ids":[%q]}`, word, events[len(events)-1])
		}
		events = append(events, r.putJSON(objects.TypeEvent, js))
		r.setRef("heads/main", r.run(events))
		return events[len(events)-1]
	}
	first := add("apple")
	ids, rep := r.searchFor(t, "apple")
	if rep.Action != ActionRebuilt || !slices.Equal(ids, []objects.OID{first}) {
		t.Fatalf("first search: %+v, %v", rep, ids)
	}
	second := add("banana")
	ids, rep = r.searchFor(t, "banana")
	if rep.Action != ActionUpdated || rep.Merged || rep.EventsRead != 1 || rep.RecentEvents != 1 || !slices.Equal(ids, []objects.OID{second}) {
		t.Fatalf("after one append: %+v, %v", rep, ids)
	}
	if _, err := os.Stat(r.ix.searchRecentPath()); err != nil {
		t.Fatalf("no recent file: %v", err)
	}
	add("cherry")
	ids, rep = r.searchFor(t, "apple")
	if rep.Merged || rep.RecentEvents != 2 || !slices.Equal(ids, []objects.OID{first}) {
		t.Fatalf("after two appends: %+v, %v", rep, ids)
	}
	fourth := add("banana")
	ids, rep = r.searchFor(t, "banana")
	if !rep.Merged || rep.EventsRead != 1 || rep.Events != 4 || len(ids) != 2 || !slices.Contains(ids, fourth) {
		t.Fatalf("past the recent file's bound: %+v, %v", rep, ids)
	}
	if _, err := os.Stat(r.ix.searchRecentPath()); !os.IsNotExist(err) {
		t.Fatalf("recent file left after a merge: %v", err)
	}
	if _, rep = r.searchFor(t, "banana"); rep.Action != ActionFresh {
		t.Fatalf("again: %+v", rep)
	}
	// A damaged recent file is dropped and its events read again.
	add("damson")
	r.searchFor(t, "damson")
	b, _ := os.ReadFile(r.ix.searchRecentPath())
	b[len(b)-1] ^= 1
	os.WriteFile(r.ix.searchRecentPath(), b, 0o644)
	ids, rep = r.searchFor(t, "damson")
	if rep.Action != ActionUpdated || rep.EventsRead != 1 || len(ids) != 1 {
		t.Fatalf("after damaging the recent file: %+v, %v", rep, ids)
	}
}

// FuzzDecodeSearch feeds arbitrary bytes to the search file decoder and
// every posting block of what decodes: nothing may panic.
func FuzzDecodeSearch(f *testing.F) {
	a := objects.BLAKE3
	ev := a.Derive(objects.TypeEvent, 1, []byte(`{"e":1}`))
	ev2 := a.Derive(objects.TypeEvent, 1, []byte(`{"e":2}`))
	events := []objects.OID{ev, ev2}
	sortOIDs(events)
	good := encodeSearch(a, events, map[string][]posting{"alpha": {{0, FieldInput}, {1, FieldMeta}}, "beta": {{1, FieldOutput}}})
	f.Add(good[:len(good)-checksumSize])
	f.Add(good[:len(good)/2])
	f.Fuzz(func(t *testing.T, body []byte) {
		// Sealed with a valid checksum, so the body's checks are reached.
		h := objects.SHA256.New()
		h.Write(body)
		s, err := decodeSearch(h.Sum(slices.Clip(body)))
		if err != nil {
			return
		}
		for i := range s.terms {
			s.postings(i)
		}
		s.lookup([]string{"alpha", "beta"}, FieldAll)
	})
}
