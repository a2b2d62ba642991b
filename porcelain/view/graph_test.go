package view_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/runs/runstest"
	"github.com/tinehq/tine/porcelain/view"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// golden compares got with testdata/golden/name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the golden file (go test -update rewrites it):\n%s", name, got)
	}
}

func TestGraphGolden(t *testing.T) {
	r := fixture(t)
	g, err := view.BuildGraph(t.Context(), r, view.GraphOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Events) != 8 || len(g.Runs) != 2 {
		t.Fatalf("%d events, %d runs; want 8 and 2", len(g.Events), len(g.Runs))
	}
	m, err := view.Mermaid(g)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "graph_fixture.mmd", []byte(m))
	golden(t, "graph_fixture.dot", []byte(view.DOT(g)))
	js, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "graph_fixture.json", append(js, '\n'))
}

// TestGraphEscapes checks the property the goldens freeze: no recorded
// character that could end a label or start markup survives unescaped.
func TestGraphEscapes(t *testing.T) {
	g, err := view.BuildGraph(t.Context(), fixture(t), view.GraphOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	m, err := view.Mermaid(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(m, "\n") {
		label, ok := strings.CutPrefix(strings.TrimSpace(line), "e")
		if !ok || !strings.Contains(label, `["`) {
			continue
		}
		inner := label[strings.Index(label, `["`)+2 : strings.LastIndex(label, `"]`)]
		inner = strings.ReplaceAll(inner, "<br/>", " ")
		if strings.ContainsAny(inner, "\"<>[](){}|`*\n\\&") {
			t.Fatalf("unescaped text in mermaid label %q", inner)
		}
	}
	if !strings.Contains(m, "#60;script#62;") {
		t.Fatalf("the hostile tool name is not in the mermaid output:\n%s", m)
	}
	d := view.DOT(g)
	for _, line := range strings.Split(d, "\n") {
		i := strings.Index(line, `label="`)
		if i < 0 {
			continue
		}
		rest := line[i+len(`label="`):]
		end := -1
		for j := 0; j < len(rest); j++ {
			if rest[j] == '\\' {
				j++
				continue
			}
			if rest[j] == '"' {
				end = j
				break
			}
		}
		if end < 0 || !strings.HasPrefix(rest[end:], `"`) || !strings.HasSuffix(line, "];") || strings.Contains(rest[end+1:], "label") {
			t.Fatalf("a DOT label ends early or never: %q", line)
		}
	}
	if !strings.Contains(d, `error: \\N &amp; #quot; \"]) --> x; <script>alert(1)</script> `+"`md` |[a]{c} z\"") {
		t.Fatalf("the hostile text is not escaped as expected:\n%s", d)
	}
}

func TestGraphRevs(t *testing.T) {
	r := fixture(t)
	g, err := view.BuildGraph(t.Context(), r, view.GraphOptions{Revs: []string{"experiments/retry"}})
	if err != nil {
		t.Fatal(err)
	}
	// The fork holds main's first two events and its own four.
	if len(g.Events) != 5 || len(g.Runs) != 1 || g.Runs[0].Ref != "experiments/retry" || g.Runs[0].ForkedFrom == nil {
		t.Fatalf("graph of the fork: %d events, runs %+v", len(g.Events), g.Runs)
	}
	if len(g.Runs[0].Scores) != 2 || g.Runs[0].Scores[0].Name != "accuracy" || g.Runs[0].Scores[0].Value != 0.9 || g.Runs[0].Scores[0].Signer != "ci" {
		t.Fatalf("scores %+v", g.Runs[0].Scores)
	}
	// heads/main~1 is a run no ref points at: drawn without a ref.
	g, err = view.BuildGraph(t.Context(), r, view.GraphOptions{Revs: []string{"heads/main~1", "heads/main~1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Runs) != 1 || g.Runs[0].Ref != "" || len(g.Events) != 4 {
		t.Fatalf("graph of heads/main~1: %d events, runs %+v", len(g.Events), g.Runs)
	}
	if _, err := view.BuildGraph(t.Context(), r, view.GraphOptions{Revs: []string{"heads/main"}, All: true}); !errors.Is(err, view.ErrRevsAndAll) {
		t.Fatalf("revs with all: %v", err)
	}
}

// TestMermaidCollapsesChains: 600 linear events are over mermaid's 500
// edges; drawn collapsed they need a handful.
func TestMermaidCollapsesChains(t *testing.T) {
	r := runstest.NewRepo(t)
	chain(t, r, "heads/main", 600, 1767323045)
	g, err := view.BuildGraph(t.Context(), r, view.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := view.Mermaid(g)
	if err != nil {
		t.Fatal(err)
	}
	// Kept: the tip (it names a ref) and the root (no parent); between
	// them one box of 598 events.
	if !strings.Contains(m, `c0["598 events<br/>`) || strings.Count(m, "-->") != 2 || strings.Count(m, "-.-") != 1 {
		t.Fatalf("collapsed drawing:\n%s", m)
	}
	if !strings.Contains(view.DOT(g), "e599 [label=") {
		t.Fatal("dot must draw every event")
	}
}

// TestMermaidRefusesPastLimit: an event joining 600 roots has 600 edges
// no collapsing removes.
func TestMermaidRefusesPastLimit(t *testing.T) {
	r := runstest.NewRepo(t)
	var b strings.Builder
	for i := range 600 {
		fmt.Fprintf(&b, `{"kind":"step","parents":[],"attributes":{"i":%d},"time_unix":%d}`+"\n", i, 1767323045+i)
	}
	if _, err := runs.Import(t.Context(), r, runs.ImportOptions{Ref: "heads/main", Input: strings.NewReader(b.String())}); err != nil {
		t.Fatal(err)
	}
	runstest.AppendEvent(t, r, "heads/main", `{"kind":"join","time_unix":1767400000}`, nil)
	g, err := view.BuildGraph(t.Context(), r, view.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = view.Mermaid(g)
	if !errors.Is(err, view.ErrTooManyEdges) || !strings.Contains(err.Error(), "--format dot") {
		t.Fatalf("mermaid past the limit: %v", err)
	}
	if n := strings.Count(view.DOT(g), " -> "); n != 601 {
		t.Fatalf("dot draws %d edges, want 601", n)
	}
}

// TestGraphAllFromCatalogMatchesRevs: the graph of every run, served by
// the catalog, is the graph of the same refs named one by one (read from
// the objects): runs, events, scores and both drawings.
func TestGraphAllFromCatalogMatchesRevs(t *testing.T) {
	r := fixture(t)
	chain(t, r, "experiments/long", 30, 1767323100)
	all, err := view.BuildGraph(t.Context(), r, view.GraphOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, gr := range all.Runs {
		names = append(names, gr.Ref)
	}
	if !slices.Equal(names, []string{"experiments/long", "experiments/retry", "heads/main"}) {
		t.Fatalf("runs of --all: %v", names)
	}
	named, err := view.BuildGraph(t.Context(), r, view.GraphOptions{Revs: names})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(all.Runs, named.Runs) || !reflect.DeepEqual(all.Events, named.Events) {
		t.Fatalf("--all differs from the refs named:\n%+v\n%+v", all.Runs, named.Runs)
	}
	if view.DOT(all) != view.DOT(named) {
		t.Fatal("DOT of --all differs")
	}
	ma, errA := view.Mermaid(all)
	mn, errN := view.Mermaid(named)
	if ma != mn || errA != nil || errN != nil {
		t.Fatalf("Mermaid of --all differs (%v, %v)", errA, errN)
	}
}
