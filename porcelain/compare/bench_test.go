package compare_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/compare"
	"github.com/tinehq/tine/refs"
)

// Benchmarks of the runs table and search at the scale issue 14 names
// (the README's tine runs and tine search sections quote them):
//
//	go test -run '^$' -bench 'RunsTable|Search' -benchmem ./porcelain/compare
//
// The fixture is 5,000 runs of 10 events each (50,000 events), each event
// with an output blob of a few lines, parameters on every run and an
// evaluation on every other run; its objects go in one batch and its refs
// in one transaction (a fixture, not porcelain writes). The catalog and
// the search index are built before the timer starts, so the figures are
// what a user waits for on a repository whose files are up to date.

const (
	benchRuns      = 5000
	benchRunEvents = 10
)

var benchWords = strings.Fields("alpha beta gamma delta epsilon train eval deploy timeout refused retry cache model tool shell loss accuracy seed batch warmup")

// benchRepo writes the fixture and returns the repository.
func benchRepo(b *testing.B) *plumbing.Repo { return writeBenchRepo(b, b.TempDir()) }

// writeBenchRepo writes the fixture into a new repository in dir (a
// directory a whole-process measurement can keep).
func writeBenchRepo(b testing.TB, dir string) *plumbing.Repo {
	b.Helper()
	ctx := context.Background()
	r, _, err := plumbing.Init(dir, objects.BLAKE3)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string { return benchWords[rng.IntN(len(benchWords))] }
	tx := r.Refs().NewTransaction("bench")
	var objs []*objects.Object
	flush := func() {
		if err := objects.PutAll(ctx, r.Objects(), objs); err != nil {
			b.Fatal(err)
		}
		objs = objs[:0]
	}
	for k := range benchRuns {
		var ids []string
		prev := ""
		for i := range benchRunEvents {
			out := objects.NewBlob(r.Algo(), []byte(fmt.Sprintf("step %d of run %d\n%s %s %s\nuniq%d\n", i, k, word(), word(), word(), k*benchRunEvents+i)))
			parents := "[]"
			if prev != "" {
				parents = fmt.Sprintf("[%q]", prev)
			}
			js := fmt.Sprintf(`{"kind":"tool","tool":"shell","parent_ids":%s,"time_unix":%d,"cost":0.25,"duration":1.5,"usage":{"total":%d},"output_blob":%q,"attributes":{"argv":["./train.sh","--%s"],"exit_code":0,"params":{"lr":"0.0%d","seed":"%d"}}}`,
				parents, 1700000000+k*benchRunEvents+i, 100+i, out.ID.String(), word(), 1+k%9, k%3)
			ev := mustObject(b, r.Algo(), objects.TypeEvent, js)
			objs = append(objs, out, ev)
			prev = ev.ID.String()
			ids = append(ids, fmt.Sprintf("%q", prev))
		}
		run := mustObject(b, r.Algo(), objects.TypeRun, fmt.Sprintf(`{"created_at":1700000000,"events":[%s],"roots":[%s],"tips":[%s],"status":"completed"}`,
			strings.Join(ids, ","), ids[0], ids[len(ids)-1]))
		objs = append(objs, run)
		if k%2 == 0 {
			objs = append(objs, mustObject(b, r.Algo(), objects.TypeAttestation, fmt.Sprintf(
				`{"claim":{"kind":"evaluation","scores":{"accuracy":%g}},"evidence_ids":[],"signature":null,"signer":"ci","target_id":%q}`, float64(k%100)/100, run.ID.String())))
		}
		ns := "experiments/sweep"
		if k == 0 {
			ns = "heads"
		}
		tx.Create(fmt.Sprintf("%s/r%05d", ns, k), run.ID)
		if len(objs) > 4000 {
			flush()
		}
	}
	flush()
	if err := tx.Commit(ctx); err != nil {
		b.Fatal(err)
	}
	return r
}

func mustObject(b testing.TB, a objects.Algo, t objects.Type, js string) *objects.Object {
	b.Helper()
	v, err := objects.ParseJSON([]byte(js), objects.ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	o, err := objects.NewJSONObject(a, t, 1, v)
	if err != nil {
		b.Fatal(err)
	}
	return o
}

// BenchmarkRunsTable5000 is `tine runs` on 5,000 runs: load and verify
// the catalog, compare it with the refs, fold 5,000 summaries, sort and
// filter. Target: under 0.5 s.
func BenchmarkRunsTable5000(b *testing.B) {
	r := benchRepo(b)
	f, _ := compare.ParseFilter("accuracy>=0.5")
	if _, err := compare.BuildTable(b.Context(), r, compare.TableOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		t, err := compare.BuildTable(b.Context(), r, compare.TableOptions{SortBy: "accuracy", Desc: true, Filters: []compare.Filter{f}, OnlyChanged: true})
		if err != nil {
			b.Fatal(err)
		}
		if len(t.Rows) != 1250 {
			b.Fatalf("%d rows", len(t.Rows))
		}
	}
}

// BenchmarkSearch50000 is `tine search` over 50,000 events: a rare term
// (one hit, verified) and a common one (thousands of candidates, the
// first 50 verified).
func BenchmarkSearch50000(b *testing.B) {
	r := benchRepo(b)
	if _, err := compare.Search(b.Context(), r, compare.SearchOptions{Query: "uniq4242"}); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct {
		name, query string
		hits        int
	}{{"rare", "uniq4242", 1}, {"common", "deploy timeout", compare.DefaultSearchLimit}} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				res, err := compare.Search(b.Context(), r, compare.SearchOptions{Query: q.query})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Hits) != q.hits || res.Index.Action != "fresh" {
					b.Fatalf("%d hits, index %s", len(res.Hits), res.Index.Action)
				}
				b.ReportMetric(float64(res.Index.Bytes), "index-bytes")
				b.ReportMetric(float64(res.Index.Terms), "terms")
			}
		})
	}
}

// BenchmarkSearchIndex50000 is the search index's maintenance: a rebuild
// from scratch (every event and blob read and tokenized) and the
// incremental update after one event is appended to one run (the new
// event read, the file rewritten).
func BenchmarkSearchIndex50000(b *testing.B) {
	r := benchRepo(b)
	ix := plumbing.OpenIndex(r)
	cat, _, err := ix.Catalog(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("rebuild", func(b *testing.B) {
		for b.Loop() {
			_, rep, err := ix.Search(b.Context(), cat, true)
			if err != nil || rep.EventsRead != benchRuns*benchRunEvents {
				b.Fatal(err, rep)
			}
		}
	})
	b.Run("append1", func(b *testing.B) {
		ctx := b.Context()
		if _, _, err := ix.Search(ctx, cat, false); err != nil {
			b.Fatal(err)
		}
		n := 0
		for b.Loop() {
			b.StopTimer()
			appendOne(b, r, n)
			n++
			b.StartTimer()
			cat, _, err := ix.Catalog(ctx)
			if err != nil {
				b.Fatal(err)
			}
			_, rep, err := ix.Search(ctx, cat, false)
			if err != nil || rep.EventsRead != 1 && !rep.Merged {
				b.Fatal(err, rep)
			}
		}
	})
}

// appendOne writes a run of heads/r00000's events plus one more and moves
// the ref to it (a fixture's append, not tine record).
func appendOne(b *testing.B, r *plumbing.Repo, n int) {
	ctx := b.Context()
	o, err := r.Refs().Resolve(ctx, "heads/r00000")
	if err != nil {
		b.Fatal(err)
	}
	evs, _ := o.Value.Get("events")
	tips, _ := o.Value.Get("tips")
	ev := mustObject(b, r.Algo(), objects.TypeEvent, fmt.Sprintf(`{"kind":"human","parent_ids":[%q],"output":"appended %d"}`, tips.Array[0].Str, n))
	list := append(append([]objects.Value(nil), evs.Array...), objects.String(ev.ID.String()))
	run, err := objects.NewJSONObject(r.Algo(), objects.TypeRun, 1, objects.ObjectValue(
		objects.Member{Key: "events", Value: objects.Array(list...)},
		objects.Member{Key: "roots", Value: objects.Array(evs.Array[0])},
		objects.Member{Key: "tips", Value: objects.Array(objects.String(ev.ID.String()))},
	))
	if err != nil {
		b.Fatal(err)
	}
	if err := objects.PutAll(ctx, r.Objects(), []*objects.Object{ev, run}); err != nil {
		b.Fatal(err)
	}
	if err := r.Refs().UpdateExpect(ctx, "heads/r00000", run.ID, refs.ExpectValue(o.ID), "bench"); err != nil {
		b.Fatal(err)
	}
}
