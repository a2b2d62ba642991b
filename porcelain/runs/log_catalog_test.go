package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// Tests of log --all served from the catalog (log_catalog.go): whatever
// the history, the catalog path prints what the direct path (every run
// and event read) prints, fresh, stale or damaged catalog alike.

// randomHistory writes a random history to r: events whose payloads mix
// what the catalog holds whole with what it must leave to the direct path
// (cut text, non-string errors and argv words, numeric strings, odd usage,
// merges and repeated parents, no time, events listed but not stored),
// runs that are ancestor closures of one or two tips, and refs of every
// namespace log --all covers or skips.
func randomHistory(t *testing.T, r *plumbing.Repo, rng *rand.Rand, n int) {
	t.Helper()
	ctx := context.Background()
	var ids []objects.OID
	var parentsOf [][]int
	var objs []*objects.Object
	stored := map[int]bool{}
	for i := range n {
		var ps []int
		if i > 0 {
			switch k := rng.IntN(10); {
			case k == 0: // a new root
			case k == 1 && i > 2: // a merge, sometimes naming a parent twice
				a, b := rng.IntN(i), rng.IntN(i)
				ps = []int{a, b}
			default:
				ps = []int{max(0, i-1-rng.IntN(3))}
			}
		}
		parentsOf = append(parentsOf, ps)
		quoted := make([]string, len(ps))
		for j, p := range ps {
			quoted[j] = fmt.Sprintf("%q", ids[p].String())
		}
		fields := []string{fmt.Sprintf(`"parent_ids":[%s]`, strings.Join(quoted, ",")), fmt.Sprintf(`"seq":%d`, i)}
		fields = append(fields, pick(rng, []string{`"kind":"tool"`, `"kind":"model"`}, `"kind":"`+strings.Repeat("k", 300)+`"`, `"kind":7`))
		fields = append(fields, pick(rng, []string{``, `"model":"m1"`, `"tool":"shell"`, `"model":"m2","tool":"t2"`}, `"tool":"`+strings.Repeat("t", 5000)+`"`))
		// Few distinct times, so ties are ordered by oid.
		fields = append(fields, pick(rng, []string{``, `"time_unix":1700000000`, fmt.Sprintf(`"time_unix":%d`, 1700000000+rng.IntN(5)), `"time_unix":"1700000002.5"`}))
		fields = append(fields, pick(rng, []string{``, `"cost":0.25`, `"cost":"1_000"`, `"cost":true`, `"duration":3`, `"cost":1e300`}))
		fields = append(fields, pick(rng, []string{``, `"error":"boom"`, `"error":{"code":1}`, `"error":false`}, `"error":"`+strings.Repeat("e", 5000)+`"`))
		fields = append(fields, pick(rng, []string{``, `"score":0.5`, `"score":"high"`, `"usage":{"total":12}`, `"usage":{"input":3,"output":4}`}, `"usage":{"total":"x","input":3}`))
		fields = append(fields, `"attributes":{`+strings.Trim(strings.Join([]string{
			pick(rng, []string{``, `"argv":["sh","-c","echo 'hi' \"x\""]`, `"argv":["go",7]`, `"argv":["` + strings.Repeat("a", 300) + `"]`}, `"argv":[`+strings.TrimSuffix(strings.Repeat(`"w",`, 300), ",")+`]`),
			pick(rng, []string{``, `"exit_code":0`, `"exit_code":2`, `"exit_code":"2"`}),
			pick(rng, []string{``, `"score":0.75`}),
		}, ","), ",")+`}`)
		var nonEmpty []string
		for _, f := range fields {
			if f != "" {
				nonEmpty = append(nonEmpty, f)
			}
		}
		js := "{" + strings.ReplaceAll(strings.Join(nonEmpty, ","), "{,", "{") + "}"
		js = strings.ReplaceAll(js, ",,", ",")
		o := jsonObject(t, r.Algo(), objects.TypeEvent, js)
		ids = append(ids, o.ID)
		// Some roots are listed but not stored (a shallow boundary).
		if len(ps) > 0 || rng.IntN(4) != 0 {
			objs = append(objs, o)
			stored[i] = true
		}
	}
	closure := func(tips []int) []int {
		in := map[int]bool{}
		var walk func(int)
		walk = func(i int) {
			if in[i] {
				return
			}
			in[i] = true
			for _, p := range parentsOf[i] {
				walk(p)
			}
		}
		for _, tp := range tips {
			walk(tp)
		}
		var out []int
		for i := range n {
			if in[i] {
				out = append(out, i)
			}
		}
		return out
	}
	spell := func(is []int) string {
		q := make([]string, len(is))
		for j, i := range is {
			q[j] = fmt.Sprintf("%q", ids[i].String())
		}
		return strings.Join(q, ",")
	}
	names := []string{"heads/main", "heads/a", "experiments/x/1", "experiments/x/2", "tags/v1", "promotions/p", "remotes/o/main"}
	var runIDs []objects.OID
	for k := range names {
		tips := []int{n - 1 - rng.IntN(n/2)}
		if rng.IntN(3) == 0 {
			tips = append(tips, rng.IntN(n))
		}
		evs := closure(tips)
		status := pick(rng, []string{`"status":"running",`, `"status":"completed",`, ``}, `"status":"",`)
		run := jsonObject(t, r.Algo(), objects.TypeRun, fmt.Sprintf(`{%s"created_at":%d,"events":[%s],"roots":[%s],"tips":[%s]}`,
			status, 1700000000+k, spell(evs), spell(evs[:1]), spell(tips)))
		objs = append(objs, run)
		runIDs = append(runIDs, run.ID)
	}
	if err := objects.PutAll(ctx, r.Objects(), objs); err != nil {
		t.Fatal(err)
	}
	// The roots left out are the shallow boundary, declared as a shallow
	// fetch declares it: an unlisted absent event would be damage.
	var boundary []objects.OID
	for i := range n {
		if !stored[i] {
			boundary = append(boundary, ids[i])
		}
	}
	if err := r.Refs().UpdateShallow(ctx, func([]objects.OID) ([]objects.OID, error) { return boundary, nil }); err != nil {
		t.Fatal(err)
	}
	for k, name := range names {
		if err := r.Refs().UpdateExpect(ctx, name, runIDs[k], refs.ExpectAny, "test"); err != nil {
			t.Fatal(err)
		}
	}
	// Two refs naming one run, and a ref naming an event.
	if err := r.Refs().UpdateExpect(ctx, "heads/same", runIDs[0], refs.ExpectAny, "test"); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if stored[i] {
			if err := r.Refs().UpdateExpect(ctx, "tags/event", ids[i], refs.ExpectAny, "test"); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
}

// pick returns one of usual at random, or rarely (one time in 40) one
// of odd: what the catalog cannot hold whole, so that most histories are
// served from the catalog and some take each way around it.
func pick(rng *rand.Rand, usual []string, odd ...string) string {
	if len(odd) > 0 && rng.IntN(40) == 0 {
		return odd[rng.IntN(len(odd))]
	}
	return usual[rng.IntN(len(usual))]
}

// logBoth runs log --all through the catalog and directly with opt and
// fails unless both give the same JSON.
func logBoth(t *testing.T, r *plumbing.Repo, opt LogOptions) string {
	t.Helper()
	opt.All = true
	opt.Direct = false
	viaCat, err := Log(context.Background(), r, opt)
	if err != nil {
		t.Fatalf("log %+v via the catalog: %v", opt, err)
	}
	opt.Direct = true
	direct, err := Log(context.Background(), r, opt)
	if err != nil {
		t.Fatalf("log %+v direct: %v", opt, err)
	}
	a, _ := json.Marshal(viaCat)
	b, _ := json.Marshal(direct)
	if string(a) != string(b) {
		t.Fatalf("log %+v: the catalog path differs from the direct path\ncatalog: %.2000s\ndirect:  %.2000s", opt, a, b)
	}
	return string(a)
}

// TestLogAllCatalogMatchesDirect: random histories give the same log
// --all, with and without the graph and a limit, through the catalog and
// directly.
func TestLogAllCatalogMatchesDirect(t *testing.T) {
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := lazyRepo(t)
			rng := rand.New(rand.NewPCG(seed, 99))
			randomHistory(t, r, rng, 20+rng.IntN(60))
			for _, opt := range []LogOptions{{}, {Graph: true}, {Graph: true, Limit: 1}, {Limit: 7}, {Graph: true, Limit: 13}} {
				logBoth(t, r, opt)
			}
		})
	}
}

// TestLogAllCatalogStaleOrDamaged: a catalog written before a ref moved,
// one whose file is damaged, and one missing all give the direct path's
// log --all.
func TestLogAllCatalogStaleOrDamaged(t *testing.T) {
	ctx := context.Background()
	r := lazyRepo(t)
	base := writeChain(t, r, "heads/main", nil, 50, "m", false)
	writeChain(t, r, "experiments/f", base[:30], 5, "f", false)
	if err := RefreshIndex(ctx, r); err != nil {
		t.Fatal(err)
	}
	before := logBoth(t, r, LogOptions{Graph: true})
	// The refs move without the catalog hearing of it.
	writeChain(t, r, "heads/main", base, 3, "n", false)
	writeChain(t, r, "experiments/g", base[:10], 2, "g", false)
	after := logBoth(t, r, LogOptions{Graph: true})
	if after == before || !strings.Contains(after, "experiments/g") {
		t.Fatalf("log --all after the refs moved does not show them")
	}
	path := plumbing.OpenIndex(r).Path()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := logBoth(t, r, LogOptions{Graph: true}); got != after {
		t.Fatalf("log --all over a damaged catalog differs")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := logBoth(t, r, LogOptions{Graph: true}); got != after {
		t.Fatalf("log --all with no catalog differs")
	}
}

// TestLogAllCatalogReadsNoEvents: with the catalog up to date, log --all
// of 20 runs sharing a 2,000-event history reads no event and no run
// object; the direct path reads each once.
func TestLogAllCatalogReadsNoEvents(t *testing.T) {
	ctx := context.Background()
	r := lazyRepo(t)
	base := writeChain(t, r, "heads/main", nil, 2000, "m", false)
	for k := range 19 {
		writeChain(t, r, fmt.Sprintf("experiments/f%02d", k), base[:2000-k*100], 2, fmt.Sprint("f", k), false)
	}
	if err := RefreshIndex(ctx, r); err != nil {
		t.Fatal(err)
	}
	c := newCounting(r.Objects())
	res, parents, ok, err := logAllCatalog(ctx, r, c, 0)
	if err != nil || !ok {
		t.Fatalf("catalog path: ok %v, %v", ok, err)
	}
	if len(res.Runs) != 20 || len(res.Entries) != 2038 || len(parents) != 2038 {
		t.Fatalf("runs %d, entries %d", len(res.Runs), len(res.Entries))
	}
	if ev, _ := c.of(objects.TypeEvent); ev != 0 {
		t.Errorf("log --all from the catalog read %d events, want 0", ev)
	}
	if runs, _ := c.of(objects.TypeRun); runs != 0 {
		t.Errorf("log --all from the catalog read %d run objects, want 0", runs)
	}
	logBoth(t, r, LogOptions{Graph: true})
}

// TestLogAllUntimedTreeKeepsFewLanes: a run imported without times whose
// events form a tree (a root, 10 children, 10 grandchildren each, listed
// depth first) is drawn in its recorded order, one subtree at a time,
// not interleaved by oid: at most 21 lanes (10 grandchildren waiting for
// their parent, 9 children for the root), where ordering by oid kept a
// lane open for most grandchildren at once (85). Both paths draw it alike.
func TestLogAllUntimedTreeKeepsFewLanes(t *testing.T) {
	ctx := context.Background()
	r := lazyRepo(t)
	var objs []*objects.Object
	var order []string
	add := func(parent *objects.Object, seq int) *objects.Object {
		ps := "[]"
		if parent != nil {
			ps = fmt.Sprintf("[%q]", parent.ID.String())
		}
		o := jsonObject(t, r.Algo(), objects.TypeEvent, fmt.Sprintf(`{"kind":"span","seq":%d,"parent_ids":%s}`, seq, ps))
		objs = append(objs, o)
		order = append(order, fmt.Sprintf("%q", o.ID.String()))
		return o
	}
	root := add(nil, 0)
	for i := range 10 {
		a := add(root, 100*(i+1))
		for j := range 10 {
			add(a, 100*(i+1)+j+1)
		}
	}
	run := jsonObject(t, r.Algo(), objects.TypeRun, fmt.Sprintf(`{"events":[%s],"roots":[%s],"tips":[%s]}`,
		strings.Join(order, ","), order[0], order[len(order)-1]))
	objs = append(objs, run)
	if err := objects.PutAll(ctx, r.Objects(), objs); err != nil {
		t.Fatal(err)
	}
	if err := r.Refs().UpdateExpect(ctx, "heads/main", run.ID, refs.ExpectAny, "test"); err != nil {
		t.Fatal(err)
	}
	logBoth(t, r, LogOptions{Graph: true})
	res, err := Log(ctx, r, LogOptions{All: true, Graph: true})
	if err != nil {
		t.Fatal(err)
	}
	lanes := 0
	for _, l := range res.Graph {
		lanes = max(lanes, strings.Count(l.Graph, "|")+strings.Count(l.Graph, "*"))
	}
	if lanes > 21 {
		t.Fatalf("the untimed tree is drawn with %d lanes, want at most 21\n%s", lanes, drawn(res.Graph))
	}
}

// TestLogAllNodesFromCatalog: the graph's walk over every run (tine
// graph --all) served by the catalog gives LogRuns' entries and nodes
// over AllRuns, reading no event and no run object, where LogRuns read
// every event and AllRuns held every run.
func TestLogAllNodesFromCatalog(t *testing.T) {
	ctx := context.Background()
	r := lazyRepo(t)
	base := writeChain(t, r, "heads/main", nil, 500, "m", false)
	for k := range 5 {
		writeChain(t, r, fmt.Sprintf("experiments/f%02d", k), base[:500-k*50], 2, fmt.Sprint("f", k), false)
	}
	named, err := AllRuns(ctx, r.Objects(), r.Refs())
	if err != nil {
		t.Fatal(err)
	}
	want, wantNodes, err := LogRuns(ctx, r.Objects(), named, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := RefreshIndex(ctx, r); err != nil {
		t.Fatal(err)
	}
	cat, _, err := plumbing.OpenIndex(r).Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := newCounting(r.Objects())
	got, nodes, ok, err := LogAllNodes(ctx, cat, c)
	if err != nil || !ok {
		t.Fatalf("catalog path: ok %v, %v", ok, err)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(nodes, wantNodes) {
		t.Fatalf("LogAllNodes differs from LogRuns over AllRuns: %d/%d entries, %d/%d nodes", len(got.Entries), len(want.Entries), len(nodes), len(wantNodes))
	}
	if ev, _ := c.of(objects.TypeEvent); ev != 0 {
		t.Errorf("read %d events, want 0", ev)
	}
	if n, _ := c.of(objects.TypeRun); n != 0 {
		t.Errorf("read %d run objects, want 0", n)
	}
}
