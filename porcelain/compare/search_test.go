package compare_test

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/compare"
	"github.com/tinehq/tine/porcelain/runs/runstest"
)

// searchFixture: a tool event with argv and output, a model event with an
// input and output, on two refs.
func searchFixture(t *testing.T) *plumbing.Repo {
	r := runstest.NewRepo(t)
	runstest.AppendEvent(t, r, "heads/main", `{"kind":"tool","tool":"shell","attributes":{"argv":["make","deploy"]},"output":"Connection refused by upstream"}`, clock)
	runstest.AppendEvent(t, r, "experiments/tune/a", `{"kind":"model","model":"m1","input":"Summarize the deploy log","output":"The deploy failed: timeout"}`, clock)
	return r
}

func search(t *testing.T, r *plumbing.Repo, opt compare.SearchOptions) *compare.SearchResult {
	t.Helper()
	res, err := compare.Search(t.Context(), r, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func hitRefs(res *compare.SearchResult) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Refs[0])
	}
	return out
}

func TestSearchFieldsKindsRefs(t *testing.T) {
	r := searchFixture(t)
	eq(t, "deploy anywhere, newest first", hitRefs(search(t, r, compare.SearchOptions{Query: "DEPLOY"})), "experiments/tune/a", "heads/main")
	eq(t, "deploy in output", hitRefs(search(t, r, compare.SearchOptions{Query: "deploy", In: compare.InOutput})), "experiments/tune/a")
	eq(t, "refused in input", hitRefs(search(t, r, compare.SearchOptions{Query: "refused", In: compare.InInput})))
	eq(t, "all terms must occur", hitRefs(search(t, r, compare.SearchOptions{Query: "deploy timeout"})), "experiments/tune/a")
	eq(t, "kind", hitRefs(search(t, r, compare.SearchOptions{Query: "deploy", Kind: "tool"})), "heads/main")
	eq(t, "ref glob", hitRefs(search(t, r, compare.SearchOptions{Query: "deploy", RefGlob: "experiments/*"})), "experiments/tune/a")
	res := search(t, r, compare.SearchOptions{Query: "refused"})
	if len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Snippet, "Connection refused") || res.Hits[0].Fields[0] != "output" {
		t.Fatalf("hit %+v", res.Hits)
	}
	if _, err := compare.Search(t.Context(), r, compare.SearchOptions{Query: "!"}); !errors.Is(err, compare.ErrBadQuery) {
		t.Fatalf("no-term query: %v", err)
	}
	if _, err := compare.Search(t.Context(), r, compare.SearchOptions{Query: manyWords(compare.MaxQueryTerms + 1)}); !errors.Is(err, compare.ErrBadQuery) {
		t.Fatalf("too many words: %v", err)
	}
	if _, err := compare.Search(t.Context(), r, compare.SearchOptions{Query: "x y", In: "body"}); !errors.Is(err, compare.ErrBadQuery) {
		t.Fatalf("bad --in: %v", err)
	}
}

func TestSearchIndexIsIncremental(t *testing.T) {
	r := searchFixture(t)
	res := search(t, r, compare.SearchOptions{Query: "deploy"})
	if res.Index.Action != index.ActionRebuilt || res.Index.EventsRead != 2 {
		t.Fatalf("first search: %+v", res.Index)
	}
	if res = search(t, r, compare.SearchOptions{Query: "deploy"}); res.Index.Action != index.ActionFresh {
		t.Fatalf("second search: %+v", res.Index)
	}
	runstest.AppendEvent(t, r, "heads/main", `{"kind":"human","output":"redeploy tomorrow"}`, clock)
	res = search(t, r, compare.SearchOptions{Query: "tomorrow"})
	if res.Index.Action != index.ActionUpdated || res.Index.EventsRead != 1 || len(res.Hits) != 1 {
		t.Fatalf("after an append: %+v, %d hits", res.Index, len(res.Hits))
	}
	// Older events are still found through the remapped postings.
	eq(t, "old terms", hitRefs(search(t, r, compare.SearchOptions{Query: "refused"})), "heads/main")
}

func TestSearchCorruptIndexIsRebuilt(t *testing.T) {
	r := searchFixture(t)
	search(t, r, compare.SearchOptions{Query: "deploy"})
	path := plumbing.OpenIndex(r).SearchPath()
	b, _ := os.ReadFile(path)
	b[len(b)/2] ^= 0xff
	os.WriteFile(path, b, 0o644)
	res := search(t, r, compare.SearchOptions{Query: "deploy"})
	if res.Index.Action != index.ActionRebuilt || !strings.Contains(res.Index.Reason, "checksum") || len(res.Hits) != 2 {
		t.Fatalf("after corruption: %+v, %d hits", res.Index, len(res.Hits))
	}
}

// TestSearchVerifiesHits forges a sound index file (valid checksum, the
// repository's events) that claims every event holds "zebra": no event
// does, so the search must show nothing.
func TestSearchVerifiesHits(t *testing.T) {
	r := searchFixture(t)
	search(t, r, compare.SearchOptions{Query: "deploy"})
	cat, _, err := plumbing.OpenIndex(r).Catalog(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var events []objects.OID
	cat.Events(func(e index.EventSummary) error { events = append(events, e.ID); return nil })
	var b []byte
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	b = append(b, "TINESRCH"...)
	b = binary.AppendUvarint(b, 1)
	str(string(objects.BLAKE3))
	b = binary.AppendUvarint(b, index.MaxBlobPrefix)
	b = binary.AppendUvarint(b, uint64(len(events)))
	for _, id := range events {
		b = append(b, 2)
		b = append(b, id.Digest[:]...)
	}
	b = binary.AppendUvarint(b, 1)
	str("zebra")
	var post []byte
	post = binary.AppendUvarint(post, uint64(len(events)))
	for i := range events {
		post = binary.AppendUvarint(post, uint64(min(i, 1)))
		post = append(post, index.FieldAll)
	}
	b = binary.AppendUvarint(b, uint64(len(post)))
	b = append(b, post...)
	sum := sha256.Sum256(b)
	if err := os.WriteFile(plumbing.OpenIndex(r).SearchPath(), append(b, sum[:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	res := search(t, r, compare.SearchOptions{Query: "zebra"})
	if res.Index.Action != index.ActionFresh || res.Candidates != len(events) || len(res.Hits) != 0 {
		t.Fatalf("forged index: %+v, %d candidates, hits %+v", res.Index, res.Candidates, res.Hits)
	}
}

func manyWords(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("word" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26)) + " ")
	}
	return b.String()
}
