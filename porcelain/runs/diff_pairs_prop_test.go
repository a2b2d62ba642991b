package runs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// TestDiffRunPairsProperty: over generated pairs of runs (equal runs, one a
// prefix of the other, forks at every position including 0, empty runs,
// the same events in another order or at other positions, runs sharing
// nothing, tool paths that agree past the common events and shared
// prefixes on either side of ShortSharedSteps), indexed in varied orders
// (a run before the run it extends, a base indexed first, neither), the
// diff through the history index equals the diff of the run objects,
// with and without DiffOptions.Brief, and the brief diff's counts,
// common ancestor, identical and changed flags and tool-path view agree
// with the full lists.
func TestDiffRunPairsProperty(t *testing.T) {
	ctx := context.Background()
	r := lazyRepo(t)
	rng := rand.New(rand.NewPCG(13, 5))
	pool := make([]objects.OID, 0, 64)
	put := func(obj *objects.Object) {
		t.Helper()
		if err := objects.PutAll(ctx, r.Objects(), []*objects.Object{obj}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range cap(pool) {
		// Parentless events may stand in any order in a run; few tools,
		// so different events often make the same step.
		tool := []string{"sh", "go", "curl"}[i%3]
		o := jsonObject(t, r.Algo(), objects.TypeEvent, fmt.Sprintf(
			`{"kind":"tool","tool":%q,"cost":%d,"duration":%d,"attributes":{"argv":[%q,"e%d"]}}`, tool, i%5, i%7, tool, i))
		put(o)
		pool = append(pool, o.ID)
	}
	fresh := func(n int, avoid ...[]objects.OID) []objects.OID {
		var out []objects.OID
		for _, k := range rng.Perm(len(pool)) {
			if len(out) == n {
				break
			}
			if !slices.ContainsFunc(avoid, func(l []objects.OID) bool { return slices.Contains(l, pool[k]) }) {
				out = append(out, pool[k])
			}
		}
		return out
	}
	setRun := func(ref string, ids []objects.OID) {
		t.Helper()
		q := make([]string, len(ids))
		for i, id := range ids {
			q[i] = fmt.Sprintf("%q", id.String())
		}
		list := strings.Join(q, ",")
		run := jsonObject(t, r.Algo(), objects.TypeRun, fmt.Sprintf(`{"created_at":1700000000,"events":[%s],"roots":[%s],"tips":[%s],"status":"running"}`, list, list, list))
		put(run)
		if err := r.Refs().UpdateExpect(ctx, ref, run.ID, refs.ExpectAny, "test"); err != nil {
			t.Fatal(err)
		}
	}
	for pair := range 120 {
		n := rng.IntN(9)
		if rng.IntN(4) == 0 {
			n = ShortSharedSteps - 2 + rng.IntN(8)
		}
		a := fresh(n)
		var b []objects.OID
		kind := rng.IntN(7)
		switch kind {
		case 0: // the same events
			b = slices.Clone(a)
		case 1: // a prefix of a (maybe empty)
			b = slices.Clone(a[:rng.IntN(len(a)+1)])
		case 2: // a fork at any position, 0 included
			k := rng.IntN(len(a) + 1)
			b = append(slices.Clone(a[:k]), fresh(rng.IntN(5), a)...)
		case 3: // a's events in another order
			b = slices.Clone(a)
			rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		case 4: // a's later events at earlier positions, then new ones
			b = append(slices.Clone(a[min(len(a), 1+rng.IntN(3)):]), fresh(rng.IntN(3), a)...)
		case 5: // nothing shared (or an empty run)
			b = fresh(rng.IntN(4), a)
		default: // a prefix of a, then a's own later events skipped
			k := rng.IntN(len(a) + 1)
			b = slices.Clone(a[:k])
			if k+1 < len(a) {
				b = append(b, a[k+1:]...)
			}
		}
		if rng.IntN(2) == 0 {
			a, b = b, a
		}
		refA, refB := fmt.Sprintf("heads/p%03d-a", pair), fmt.Sprintf("heads/p%03d-b", pair)
		// The shared prefix as a run of its own, indexed first or not.
		k := 0
		for k < len(a) && k < len(b) && a[k] == b[k] {
			k++
		}
		switch rng.IntN(3) {
		case 0:
			setRun(fmt.Sprintf("heads/p%03d-base", pair), a[:rng.IntN(k+1)])
			if _, err := UpdateHistory(ctx, r); err != nil {
				t.Fatal(err)
			}
		case 1:
			setRun(refB, b) // indexed before a, which may extend it
			if _, err := UpdateHistory(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		setRun(refA, a)
		setRun(refB, b)
		if rng.IntN(2) == 0 {
			if _, err := UpdateHistory(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		what := fmt.Sprintf("pair %d (kind %d): a %d events, b %d events, %d in the same first positions", pair, kind, len(a), len(b), k)
		x, y := refA, refB
		if rng.IntN(2) == 0 {
			x, y = y, x
		}
		diffPairAgrees(t, r, what, x, y)
	}
}

// diffPairAgrees checks the diff of refs x and y every way: the objects'
// full diff is the reference; the index's full diff equals it, and each
// brief diff equals its full one but for the lists it leaves out.
func diffPairAgrees(t *testing.T, r *plumbing.Repo, what, x, y string) {
	t.Helper()
	ctx := context.Background()
	diff := func(indexed, brief bool) *DiffResult {
		t.Helper()
		setNoHistoryIndex(t, !indexed)
		res, err := DiffRevisions(ctx, r, x, y, DiffOptions{Brief: brief})
		setNoHistoryIndex(t, false)
		if err != nil {
			t.Fatalf("%s: indexed %v brief %v: %v", what, indexed, brief, err)
		}
		return res
	}
	want := diff(false, false)
	common := map[string]bool{}
	for _, id := range want.Common {
		common[id] = true
	}
	if want.CommonCount != len(want.Common) || want.Identical != (len(want.OnlyA) == 0 && len(want.OnlyB) == 0) ||
		want.ToolPathChanged != !slices.Equal(want.A.ToolPath, want.B.ToolPath) ||
		(len(want.Common) == 0) != (want.CommonAncestor == "") || (want.CommonAncestor != "" && want.CommonAncestor != want.Common[len(want.Common)-1]) {
		t.Fatalf("%s: the objects' diff contradicts itself: %s", what, jsonOf(t, want))
	}
	for _, indexed := range []bool{false, true} {
		full := diff(indexed, false)
		if g, w := jsonOf(t, full), jsonOf(t, want); g != w || full.CommonCount != want.CommonCount ||
			fmt.Sprintf("%+v", full.ToolPaths) != fmt.Sprintf("%+v", want.ToolPaths) {
			t.Fatalf("%s: indexed %v full diff\n%s %d %+v\nobjects\n%s %d %+v", what, indexed, g, full.CommonCount, full.ToolPaths, w, want.CommonCount, want.ToolPaths)
		}
		brief := diff(indexed, true)
		if brief.Common != nil || brief.A.ToolPath != nil || brief.B.ToolPath != nil {
			t.Fatalf("%s: indexed %v: a brief diff holds the whole lists", what, indexed)
		}
		v := brief.ToolPaths
		pa, pb := want.A.ToolPath, want.B.ToolPath
		whole := func(rest []string) []string { return append(slices.Clone(v.Head), rest...) }
		if brief.CommonCount != want.CommonCount || brief.CommonAncestor != want.CommonAncestor || brief.Identical != want.Identical ||
			brief.ToolPathChanged != want.ToolPathChanged || v.Changed() != want.ToolPathChanged ||
			v.Shared > min(len(pa), len(pb)) || !slices.Equal(pa[:v.Shared], pb[:v.Shared]) ||
			(v.Shared < len(pa) && v.Shared < len(pb) && pa[v.Shared] == pb[v.Shared]) ||
			!slices.Equal(v.A, pa[v.Shared:]) || !slices.Equal(v.B, pb[v.Shared:]) ||
			(v.Shared <= ShortSharedSteps && (!slices.Equal(whole(v.A), pa) || !slices.Equal(whole(v.B), pb))) ||
			(v.Shared > ShortSharedSteps && v.Head != nil) {
			t.Fatalf("%s: indexed %v brief diff: %d common, ancestor %q, identical %v, changed %v, view %+v\nfull: %s", what, indexed,
				brief.CommonCount, brief.CommonAncestor, brief.Identical, brief.ToolPathChanged, v, jsonOf(t, want))
		}
		brief.Common, brief.A.ToolPath, brief.B.ToolPath = want.Common, pa, pb
		if g, w := jsonOf(t, brief), jsonOf(t, want); g != w {
			t.Fatalf("%s: indexed %v brief diff\n%s\nfull\n%s", what, indexed, g, w)
		}
	}
}
