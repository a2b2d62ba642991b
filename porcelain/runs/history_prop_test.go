package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// TestHistoryIndexMatchesObjects is the history index's property test:
// over random sequences of imports onto new and existing refs, forks at
// random events (some then extended), and ref moves back to older runs,
// log -n k, the full log, diff (text, JSON and with --text blobs) and
// show of every ref pair answered through the index equal the answers of
// the path that reads the run objects (the reference implementation).
func TestHistoryIndexMatchesObjects(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			r := lazyRepo(t)
			ctx := context.Background()
			refNames := []string{}
			seen := map[string][]objects.OID{}
			note := func(ref string) {
				if id, err := r.Refs().Read(ctx, ref); err == nil {
					seen[ref] = append(seen[ref], id)
				}
			}
			clock := time.Unix(1700000000, 0)
			now := func() time.Time { clock = clock.Add(time.Second); return clock }
			for step := 0; step < 14; step++ {
				switch op := rng.IntN(4); {
				case op == 0 || len(refNames) == 0:
					ref := fmt.Sprintf("heads/r%d", len(refNames))
					if len(refNames) > 0 && rng.IntN(2) == 0 {
						ref = refNames[rng.IntN(len(refNames))]
					} else {
						refNames = append(refNames, ref)
					}
					propImport(t, r, ref, rng, now)
					note(ref)
				case op == 1:
					src := refNames[rng.IntN(len(refNames))]
					lr, err := Log(ctx, r, LogOptions{Rev: src})
					if err != nil {
						t.Fatal(err)
					}
					if len(lr.Entries) == 0 {
						continue
					}
					ev := lr.Entries[rng.IntN(len(lr.Entries))].Event
					ref := fmt.Sprintf("experiments/f%d", len(refNames))
					if _, err := Fork(ctx, r, ForkOptions{Source: src, From: ev, Ref: ref, Now: now}); err != nil {
						t.Fatal(err)
					}
					refNames = append(refNames, ref)
					note(ref)
					if rng.IntN(2) == 0 {
						propImport(t, r, ref, rng, now)
						note(ref)
					}
				case op == 2:
					// Resume an older state: the ref goes back one run
					// (as reset would), then grows a new tail.
					ref := refNames[rng.IntN(len(refNames))]
					if old := seen[ref]; len(old) > 1 {
						if err := r.Refs().UpdateExpect(ctx, ref, old[rng.IntN(len(old)-1)], refs.ExpectAny, "test"); err != nil {
							t.Fatal(err)
						}
						propImport(t, r, ref, rng, now)
						note(ref)
					}
				default:
					if rng.IntN(2) == 0 {
						if _, err := UpdateHistory(ctx, r); err != nil {
							t.Fatal(err)
						}
					}
				}
				propCompare(t, r, refNames, rng)
			}
			// The index answered: every ref's run is in it.
			h, err := openHistory(r)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			for _, ref := range refNames {
				if hr, err := h.Run(runOf(t, r, ref)); err != nil || hr == nil {
					t.Errorf("%s: run not indexed (%v)", ref, err)
				}
			}
		})
	}
}

// propImport appends 1 to 40 events to ref, with varied tools, meters and
// scores.
func propImport(t *testing.T, r *plumbing.Repo, ref string, rng *rand.Rand, now func() time.Time) {
	t.Helper()
	var b strings.Builder
	for i, n := 0, 1+rng.IntN(40); i < n; i++ {
		tool := []string{"sh", "python", "go", "curl"}[rng.IntN(4)]
		fmt.Fprintf(&b, `{"kind":"tool","tool":%q,"cost":%g,"duration":%g,"usage":{"input":%d,"output":%d},"attributes":{"argv":[%q,"-x","%d"]}`,
			tool, float64(rng.IntN(1000))/7, float64(rng.IntN(100))/3, rng.IntN(500), rng.IntN(500), tool, rng.IntN(9))
		if rng.IntN(5) == 0 {
			fmt.Fprintf(&b, `,"score":%g`, float64(rng.IntN(100))/9)
		}
		b.WriteString("}\n")
	}
	if _, err := Import(context.Background(), r, ImportOptions{Ref: ref, Input: strings.NewReader(b.String()), Now: now}); err != nil {
		t.Fatal(err)
	}
}

// propCompare checks log, diff and show of random refs both ways.
func propCompare(t *testing.T, r *plumbing.Repo, refNames []string, rng *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	both := func(what string, f func() (any, error)) {
		t.Helper()
		setNoHistoryIndex(t, true)
		want, werr := f()
		setNoHistoryIndex(t, false)
		got, gerr := f()
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || string(wj) != string(gj) {
			t.Fatalf("%s: index gives\n%s (%v)\nobjects give\n%s (%v)", what, gj, gerr, wj, werr)
		}
	}
	for k := 0; k < 3; k++ {
		a, b := refNames[rng.IntN(len(refNames))], refNames[rng.IntN(len(refNames))]
		limit := []int{0, 1, 5, 20}[rng.IntN(4)]
		both("log -n "+fmt.Sprint(limit)+" "+a, func() (any, error) {
			return Log(ctx, r, LogOptions{Rev: a, Limit: limit, Graph: limit == 5})
		})
		for _, text := range []bool{false, true} {
			both(fmt.Sprintf("diff %s %s (text %v)", a, b, text), func() (any, error) {
				return DiffRevisions(ctx, r, a, b, DiffOptions{Text: text})
			})
		}
		both(fmt.Sprintf("brief diff %s %s", a, b), func() (any, error) {
			return briefDiff(ctx, t, r, a, b)
		})
		if id, err := r.Refs().Read(ctx, a); err == nil {
			both("diff by oid "+a, func() (any, error) {
				return DiffRevisions(ctx, r, id.String(), b, DiffOptions{})
			})
		}
		both("show "+a, func() (any, error) { return Show(ctx, r, ShowOptions{Rev: a}) })
	}
}

// briefView is a brief diff with the fields the JSON leaves out.
type briefView struct {
	Res         *DiffResult
	CommonCount int
	ToolPaths   ToolPathView
}

// briefDiff is the brief diff of a and b, checked against the full one:
// the same but for the lists it leaves out, which its counts and tool-path
// view agree with.
func briefDiff(ctx context.Context, t *testing.T, r *plumbing.Repo, a, b string) (*briefView, error) {
	t.Helper()
	full, err := DiffRevisions(ctx, r, a, b, DiffOptions{})
	if err != nil {
		return nil, err
	}
	res, err := DiffRevisions(ctx, r, a, b, DiffOptions{Brief: true})
	if err != nil {
		return nil, err
	}
	v := &briefView{Res: res, CommonCount: res.CommonCount, ToolPaths: res.ToolPaths}
	if res.Common != nil || res.A.ToolPath != nil || res.B.ToolPath != nil {
		t.Fatalf("brief diff %s %s holds the whole lists", a, b)
	}
	pa, pb, tv := full.A.ToolPath, full.B.ToolPath, res.ToolPaths
	whole := func(rest []string) string { return fmt.Sprint(append(append([]string{}, tv.Head...), rest...)) }
	if res.CommonCount != len(full.Common) || tv.Shared > min(len(pa), len(pb)) ||
		fmt.Sprint(tv.A) != fmt.Sprint(pa[tv.Shared:]) || fmt.Sprint(tv.B) != fmt.Sprint(pb[tv.Shared:]) ||
		fmt.Sprint(pa[:tv.Shared]) != fmt.Sprint(pb[:tv.Shared]) || (tv.Shared < len(pa) && tv.Shared < len(pb) && pa[tv.Shared] == pb[tv.Shared]) ||
		(tv.Shared <= ShortSharedSteps && (whole(tv.A) != fmt.Sprint(pa) || whole(tv.B) != fmt.Sprint(pb))) ||
		(tv.Shared > ShortSharedSteps && tv.Head != nil) {
		t.Fatalf("brief diff %s %s: %d common, view %+v; full: %d common, tool paths %q and %q", a, b, res.CommonCount, tv, len(full.Common), pa, pb)
	}
	c := *res
	c.Common, c.A.ToolPath, c.B.ToolPath = full.Common, pa, pb
	if g, w := jsonOf(t, &c), jsonOf(t, full); g != w {
		t.Fatalf("brief diff %s %s:\n%s\nfull:\n%s", a, b, g, w)
	}
	return v, nil
}
