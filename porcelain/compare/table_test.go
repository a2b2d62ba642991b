package compare_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/compare"
	"github.com/tinehq/tine/porcelain/runs/runstest"
	"github.com/tinehq/tine/porcelain/trust"
)

var clock = runstest.FakeClock(time.Unix(1767225600, 0), time.Second)

// step appends a tool event with cost, tokens and params to ref.
func step(t *testing.T, r *plumbing.Repo, ref string, cost float64, tokens int, params string) {
	t.Helper()
	js := fmt.Sprintf(`{"kind":"model","model":"m1","cost":%g,"duration":2,"usage":{"input":%d,"output":0},"attributes":{"params":{%s}}}`, cost, tokens, params)
	runstest.AppendEvent(t, r, ref, js, clock)
}

func evaluate(t *testing.T, r *plumbing.Repo, ref, score string) {
	t.Helper()
	s, err := trust.ParseScore(score)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trust.Evaluate(t.Context(), r, trust.EvaluateOptions{Target: ref, Scores: []trust.Score{s}}); err != nil {
		t.Fatal(err)
	}
}

// fixture: three runs with params, costs and scores.
func fixture(t *testing.T) *plumbing.Repo {
	r := runstest.NewRepo(t)
	step(t, r, "heads/main", 0.5, 100, `"lr":"0.1","seed":"1"`)
	step(t, r, "experiments/tune/a", 1, 200, `"lr":"0.01","seed":"1"`)
	step(t, r, "experiments/tune/a", 1, 50, `"lr":"0.02"`)
	step(t, r, "experiments/other", 2, 10, `"seed":"1"`)
	evaluate(t, r, "heads/main", "accuracy=0.8")
	evaluate(t, r, "experiments/tune/a", "accuracy=0.93")
	return r
}

func build(t *testing.T, r *plumbing.Repo, opt compare.TableOptions) *compare.Table {
	t.Helper()
	tb, err := compare.BuildTable(t.Context(), r, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func column(tb *compare.Table, name string) []string {
	var out []string
	for i := range tb.Rows {
		out = append(out, tb.Cell(&tb.Rows[i], name).Text)
	}
	return out
}

func eq(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s = %q, want %q", what, got, want)
	}
}

func TestTableRowsAndColumns(t *testing.T) {
	r := fixture(t)
	tb := build(t, r, compare.TableOptions{})
	// heads/ first, then experiments/, each by name.
	eq(t, "ref", column(tb, "ref"), "heads/main", "experiments/other", "experiments/tune/a")
	eq(t, "events", column(tb, "events"), "1", "1", "2")
	eq(t, "cost", column(tb, "cost"), "0.5", "2", "2")
	eq(t, "tokens", column(tb, "tokens"), "100", "10", "250")
	eq(t, "duration", column(tb, "duration"), "2", "2", "4")
	eq(t, "status", column(tb, "status"), "running", "running", "running")
	eq(t, "accuracy", column(tb, "accuracy"), "0.8", "", "0.93")
	// The later event's lr replaces the earlier one's.
	eq(t, "param.lr", column(tb, "param.lr"), "0.1", "", "0.02")
	eq(t, "param.seed", column(tb, "param.seed"), "1", "1", "1")
}

func TestTableSortFilterOnlyChanged(t *testing.T) {
	r := fixture(t)
	f, err := compare.ParseFilter("accuracy>=0.9")
	if err != nil {
		t.Fatal(err)
	}
	tb := build(t, r, compare.TableOptions{Filters: []compare.Filter{f}})
	eq(t, "filtered", column(tb, "ref"), "experiments/tune/a")

	byTag, _ := compare.ParseFilter("ref=promotions/none")
	tb = build(t, r, compare.TableOptions{Filters: []compare.Filter{byTag}})
	eq(t, "no such ref", column(tb, "ref"))

	g, _ := compare.ParseFilter("ref~experiments/tune/*")
	tb = build(t, r, compare.TableOptions{Filters: []compare.Filter{g}})
	eq(t, "glob", column(tb, "ref"), "experiments/tune/a")

	tb = build(t, r, compare.TableOptions{SortBy: "cost"})
	eq(t, "by cost", column(tb, "ref"), "heads/main", "experiments/other", "experiments/tune/a")
	tb = build(t, r, compare.TableOptions{SortBy: "accuracy", Desc: true})
	eq(t, "by accuracy desc, empty last", column(tb, "ref"), "experiments/tune/a", "heads/main", "experiments/other")
	tb = build(t, r, compare.TableOptions{SortBy: "lr"}) // a bare parameter name
	eq(t, "by lr", column(tb, "ref"), "experiments/tune/a", "heads/main", "experiments/other")

	tb = build(t, r, compare.TableOptions{OnlyChanged: true})
	for _, c := range tb.Columns {
		if c.Name == "status" || c.Name == "param.seed" || c.Name == "gate" {
			t.Fatalf("only-changed kept %s: %+v", c.Name, tb.Columns)
		}
	}
	if tb.Col("cost") < 0 || tb.Col("ref") < 0 || tb.Col("run") < 0 {
		t.Fatalf("only-changed dropped a changing column: %+v", tb.Columns)
	}
}

func TestTableBaseline(t *testing.T) {
	r := fixture(t)
	tb := build(t, r, compare.TableOptions{Baseline: "heads/main"})
	if tb.Baseline == nil || tb.Baseline.Ref != "heads/main" {
		t.Fatalf("baseline %+v", tb.Baseline)
	}
	row := &tb.Rows[2] // experiments/tune/a
	if d := tb.Cell(row, "accuracy").Delta; d == nil || fmt.Sprintf("%.2f", *d) != "0.13" {
		t.Fatalf("accuracy delta %v", d)
	}
	if d := tb.Cell(row, "cost").Delta; d == nil || *d != 1.5 {
		t.Fatalf("cost delta %v", d)
	}
	if d := tb.Cell(&tb.Rows[1], "accuracy").Delta; d != nil {
		t.Fatalf("a run without the score got a delta %v", *d)
	}
}

func TestTableBadFilterAndColumn(t *testing.T) {
	r := fixture(t)
	for _, expr := range []string{"accuracy", ">=3", "accuracy>=high", "ref~[", "accuracy=>1"} {
		if _, err := compare.ParseFilter(expr); !errors.Is(err, compare.ErrBadFilter) {
			t.Errorf("ParseFilter(%q) = %v, want ErrBadFilter", expr, err)
		}
	}
	f, _ := compare.ParseFilter("nosuch=1")
	if _, err := compare.BuildTable(t.Context(), r, compare.TableOptions{Filters: []compare.Filter{f}}); !errors.Is(err, compare.ErrBadFilter) {
		t.Fatalf("unknown filter column: %v", err)
	}
	g, _ := compare.ParseFilter("status>1")
	if _, err := compare.BuildTable(t.Context(), r, compare.TableOptions{Filters: []compare.Filter{g}}); !errors.Is(err, compare.ErrBadFilter) {
		t.Fatalf("numeric filter on text: %v", err)
	}
	if _, err := compare.BuildTable(t.Context(), r, compare.TableOptions{SortBy: "nosuch"}); !errors.Is(err, compare.ErrBadColumn) {
		t.Fatalf("unknown sort column: %v", err)
	}
}

func TestTableNewestSignedScoreWins(t *testing.T) {
	r := fixture(t)
	key := filepath.Join(t.TempDir(), "hmac.key")
	if err := os.WriteFile(key, []byte("0123456789abcdef0123456789abcdef"), 0o600); err != nil {
		t.Fatal(err)
	}
	sign := func(score string, at time.Time, signer string) {
		s, _ := trust.ParseScore(score)
		_, err := trust.Evaluate(t.Context(), r, trust.EvaluateOptions{Target: "experiments/tune/a", Scores: []trust.Score{s}, Signer: signer,
			SignWith: trust.SignWith{KeyFile: key, HMAC: true, Now: func() time.Time { return at }}})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Signed later but lower: the newest trusted score is shown, not the
	// best, and the unsigned 0.93 (no time) is older than both.
	sign("accuracy=0.7", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), "ci")
	sign("accuracy=0.6", time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), "ci")
	tb := build(t, r, compare.TableOptions{})
	eq(t, "accuracy", column(tb, "accuracy"), "0.8", "", "0.6")
	// Only the default signer's evaluations: the unsigned ones.
	tb = build(t, r, compare.TableOptions{Trust: compare.TrustAll(trust.DefaultSigner)})
	eq(t, "accuracy by default signer", column(tb, "accuracy"), "0.8", "", "0.93")
}

func TestOnlyChangedKeepsASingleRowsColumns(t *testing.T) {
	r := fixture(t)
	f, _ := compare.ParseFilter("ref=heads/main")
	tb := build(t, r, compare.TableOptions{OnlyChanged: true, Filters: []compare.Filter{f}})
	if len(tb.Rows) != 1 || tb.Col("cost") < 0 || tb.Col("param.lr") < 0 {
		t.Fatalf("one row: %+v", tb.Columns)
	}
}
