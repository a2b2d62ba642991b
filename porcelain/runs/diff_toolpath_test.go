package runs

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestToolPathView(t *testing.T) {
	steps := func(s string) []string { return strings.Fields(s) }
	long := strings.Repeat("s ", ShortSharedSteps+1)
	for _, c := range []struct {
		name      string
		a, b      string
		offset    int
		shared    int
		head      string // "-" for nil
		restA     string
		restB     string
		changed   bool
		headCalls int
	}{
		{"nothing shared", "x y", "z", 0, 0, "", "x y", "z", true, 0},
		{"short, shared then parted", "x y z", "x y w v", 0, 2, "x y", "z", "w v", true, 0},
		{"a ends inside b", "x y", "x y z", 0, 2, "x y", "", "z", true, 0},
		{"the same", "x y", "x y", 0, 2, "x y", "", "", false, 0},
		{"offset steps read for the head", "y z", "y w", 3, 4, "p q r y", "z", "w", true, 1},
		{"long shared: no head", long + "x", long + "y", 0, ShortSharedSteps + 1, "-", "x", "y", true, 0},
		{"long offset: head not read", "y", "z", 40, 40, "-", "y", "z", true, 0},
		{"long and the same", long, long, 0, ShortSharedSteps + 1, "-", "", "", false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			v, err := newToolPathView(steps(c.a), steps(c.b), c.offset, func() ([]string, error) {
				calls++
				return steps("p q r")[:c.offset], nil
			})
			if err != nil {
				t.Fatal(err)
			}
			head := strings.Join(v.Head, " ")
			if v.Head == nil {
				head = "-"
			}
			if v.Shared != c.shared || head != c.head || strings.Join(v.A, " ") != c.restA || strings.Join(v.B, " ") != c.restB || v.Changed() != c.changed || calls != c.headCalls {
				t.Fatalf("view %+v changed %v head calls %d", v, v.Changed(), calls)
			}
		})
	}
}

// TestDiffBriefCostsTheDivergence: a fork of a long run diffed with
// DiffOptions.Brief (the human output) lists no common event and no
// whole tool path, but counts them, names the common ancestor and shows
// the tool paths from where they part: the same through the history index
// and from the run objects, and the same as the whole lists say.
func TestDiffBriefCostsTheDivergence(t *testing.T) {
	ctx := context.Background()
	r := lazyRepo(t)
	clock := time.Unix(1700000000, 0)
	now := func() time.Time { clock = clock.Add(time.Second); return clock }
	// Events differ by their argv's last word (tag), their steps by tool.
	imp := func(ref, tag string, tools ...string) {
		t.Helper()
		var b strings.Builder
		for i, tool := range tools {
			fmt.Fprintf(&b, `{"kind":"tool","tool":%q,"cost":%d,"attributes":{"argv":[%q,"%s%d"]}}`+"\n", tool, i%3, tool, tag, i)
		}
		if _, err := Import(ctx, r, ImportOptions{Ref: ref, Input: strings.NewReader(b.String()), Now: now}); err != nil {
			t.Fatal(err)
		}
	}
	shared := make([]string, 300)
	for i := range shared {
		shared[i] = []string{"npm", "go", "curl"}[i%3]
	}
	imp("heads/main", "s", shared...)
	if _, err := Fork(ctx, r, ForkOptions{Source: "heads/main", From: "heads/main", Ref: "experiments/b", Now: now}); err != nil {
		t.Fatal(err)
	}
	// Both go on to call python (different events, the same step), then
	// part.
	imp("heads/main", "a", "python", "go", "make")
	imp("experiments/b", "b", "python", "curl")
	for _, indexed := range []bool{true, false} {
		setNoHistoryIndex(t, !indexed)
		full, err := DiffRevisions(ctx, r, "heads/main", "experiments/b", DiffOptions{})
		if err != nil {
			t.Fatal(err)
		}
		brief, err := DiffRevisions(ctx, r, "heads/main", "experiments/b", DiffOptions{Brief: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(full.Common) != 300 || full.CommonCount != 300 || len(full.A.ToolPath) != 303 || len(full.B.ToolPath) != 302 {
			t.Fatalf("indexed %v: full diff: %d common (count %d), tool paths %d and %d", indexed, len(full.Common), full.CommonCount, len(full.A.ToolPath), len(full.B.ToolPath))
		}
		// The JSON's whole lists, as before: every step ("tool:program").
		wantA, wantB := []string{}, []string{}
		for _, tool := range append(append([]string{}, shared...), "python", "go", "make") {
			wantA = append(wantA, tool+":"+tool)
		}
		for _, tool := range append(append([]string{}, shared...), "python", "curl") {
			wantB = append(wantB, tool+":"+tool)
		}
		if fmt.Sprint(full.A.ToolPath) != fmt.Sprint(wantA) || fmt.Sprint(full.B.ToolPath) != fmt.Sprint(wantB) || full.CommonAncestor != full.Common[299] {
			t.Fatalf("indexed %v: full diff's tool paths\n%q\n%q", indexed, full.A.ToolPath, full.B.ToolPath)
		}
		if brief.Common != nil || brief.A.ToolPath != nil || brief.B.ToolPath != nil {
			t.Fatalf("indexed %v: a brief diff holds the whole lists", indexed)
		}
		v := brief.ToolPaths
		if brief.CommonCount != 300 || brief.CommonAncestor != full.Common[299] || v.Shared != 301 || v.Head != nil ||
			fmt.Sprint(v.A) != fmt.Sprint(full.A.ToolPath[301:]) || fmt.Sprint(v.B) != fmt.Sprint(full.B.ToolPath[301:]) || len(v.A) != 2 || len(v.B) != 1 {
			t.Fatalf("indexed %v: brief diff: count %d, ancestor %s, view %+v", indexed, brief.CommonCount, brief.CommonAncestor, v)
		}
		if fmt.Sprintf("%+v", full.ToolPaths) != fmt.Sprintf("%+v", v) || !brief.ToolPathChanged {
			t.Fatalf("indexed %v: the full diff's view %+v, the brief one's %+v", indexed, full.ToolPaths, v)
		}
		// Apart from the lists, the brief diff is the full one.
		brief.Common, brief.A.ToolPath, brief.B.ToolPath = full.Common, full.A.ToolPath, full.B.ToolPath
		if a, b := jsonOf(t, brief), jsonOf(t, full); a != b {
			t.Fatalf("indexed %v: brief diff\n%s\nfull diff\n%s", indexed, a, b)
		}
	}
}

// TestDiffBriefAllocsFlat: through the history index, a brief diff of two
// runs differing in their last 20 events allocates about the same whether
// they share 1,000 events or 20,000. Indexed as the writers index them
// (the shared run first, so both sides extend it), it reads neither the
// shared oids nor the shared steps; indexed each whole (as a rebuild may,
// refs in name order), it compares the shared positions in reused
// buffers. (The whole lists cost ~100 bytes an event.)
func TestDiffBriefAllocsFlat(t *testing.T) {
	ctx := context.Background()
	allocs := func(n int, baseFirst bool) uint64 {
		r := lazyRepo(t)
		shared := writeChain(t, r, "heads/base", nil, n, "s", false)
		if baseFirst {
			if _, err := UpdateHistory(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		writeChain(t, r, "heads/main", shared, 20, "a", false)
		writeChain(t, r, "experiments/b", shared, 20, "b", false)
		if _, err := UpdateHistory(ctx, r); err != nil {
			t.Fatal(err)
		}
		// Once to open what a first read opens (packs, caches).
		if _, err := DiffRevisions(ctx, r, "heads/main", "experiments/b", DiffOptions{Brief: true}); err != nil {
			t.Fatal(err)
		}
		// The least of five: TotalAlloc counts the whole process, and a
		// collection during one diff empties the sync.Pools its decoders
		// come from (the race detector's collections most of all), so
		// one measurement may carry a decoder's worth of noise; noise
		// only ever adds.
		least := ^uint64(0)
		for i := 0; i < 5; i++ {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, err := DiffRevisions(ctx, r, "heads/main", "experiments/b", DiffOptions{Brief: true})
			runtime.ReadMemStats(&after)
			if err != nil || res.CommonCount != n || len(res.OnlyA) != 20 || res.ToolPaths.Shared < n {
				t.Fatalf("diff: %v", err)
			}
			least = min(least, after.TotalAlloc-before.TotalAlloc)
		}
		return least
	}
	for _, baseFirst := range []bool{true, false} {
		small, large := allocs(1000, baseFirst), allocs(20000, baseFirst)
		if large > small+64<<10 {
			t.Errorf("base indexed first %v: a brief diff allocated %d bytes with 1,000 shared events and %d with 20,000", baseFirst, small, large)
		}
	}
}
