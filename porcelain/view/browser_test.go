package view_test

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tinehq/tine/porcelain/compare"
	"github.com/tinehq/tine/porcelain/demo"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/runs/runstest"
	"github.com/tinehq/tine/porcelain/view"
)

// TestViewDemoInBrowser loads the demo repository's view in headless
// Chromium: the page draws every event in as many lanes as log --graph
// --all, a click on a node shows the event and its blob, two runs diff,
// a run shows its attestation and promotion; no console error, and no
// request leaves the loopback origin.
func TestViewDemoInBrowser(t *testing.T) {
	b := newBrowser(t, 1400, 1000)
	ctx := context.Background()
	opt := demo.DemoOptions{Dir: filepath.Join(t.TempDir(), "tour"), Stdout: io.Discard, Stderr: io.Discard,
		Rand: bytes.NewReader(bytes.Repeat([]byte{7}, 32))}
	r, res, err := demo.Demo(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rel, err := demo.DemoRelease(ctx, r, opt, res)
	if err != nil {
		t.Fatal(err)
	}
	log, err := runs.Log(ctx, r, runs.LogOptions{All: true, Graph: true})
	if err != nil {
		t.Fatal(err)
	}
	lanes := 0
	for _, gl := range log.Graph {
		lanes = max(lanes, (len(gl.Graph)+1)/2)
	}
	if lanes < 2 {
		t.Fatalf("the demo's graph has %d lanes; the fork needs at least 2", lanes)
	}
	base := serve(t, r)
	b.do(t, chromedp.Navigate(base))
	b.waitJS(t, "window.tineView.ready === true")
	if n := evalJS[int](t, b, "window.tineView.events"); n != len(log.Entries) {
		t.Fatalf("the page knows %d events, log --all lists %d", n, len(log.Entries))
	}
	// Fit the whole graph in the window: every node and lane is drawn.
	b.do(t, chromedp.Click("#fit"))
	b.waitJS(t, "window.tineView.drawnNodes === "+strconv.Itoa(len(log.Entries)))
	if got := evalJS[int](t, b, "window.tineView.drawnLanes"); got != lanes {
		t.Fatalf("the page drew %d lanes, log --graph --all draws %d", got, lanes)
	}
	b.screenshot(t, "view-demo-fit.png")

	// Back at 100%, click the failing test run of heads/main: its fields
	// and its stdout blob show.
	b.do(t, chromedp.Click("#reset"))
	var failing *runs.LogEntry
	for i := range log.Entries {
		le := &log.Entries[i]
		if le.ExitCode != nil && *le.ExitCode != 0 {
			failing = le
			break
		}
	}
	if failing == nil {
		t.Fatal("the demo has no failing event")
	}
	p := b.nodePoint(t, failing.Event)
	b.do(t, chromedp.MouseClickXY(p.X, p.Y))
	b.waitJS(t, `document.querySelector("#event-fields") !== null && document.querySelector("#tab-event").textContent.includes(`+strconv.Quote(failing.Event)+`)`)
	if got := evalJS[string](t, b, `window.tineView.selected`); got != failing.Event {
		t.Fatalf("selected %q, clicked %q", got, failing.Event)
	}
	fields := evalJS[string](t, b, `[...document.querySelectorAll("#event-fields th")].map(th => th.textContent).join(",")`)
	if !strings.Contains(fields, "kind") || !strings.Contains(fields, "parent_ids") {
		t.Fatalf("event fields shown: %s", fields)
	}
	shown, err := runs.Show(ctx, r, runs.ShowOptions{Rev: failing.Event})
	if err != nil {
		t.Fatal(err)
	}
	var stdout *runs.BlobPreview
	for i := range shown.Blobs {
		if !shown.Blobs[i].Binary && shown.Blobs[i].Size > 0 {
			stdout = &shown.Blobs[i]
			break
		}
	}
	if stdout == nil {
		t.Fatalf("the failing event has no text blob: %+v", shown.Blobs)
	}
	b.do(t, chromedp.Click(`#tab-event .blob button.link`))
	b.waitJS(t, `document.querySelector("#tab-event .blob-text") !== null`)
	if got := evalJS[string](t, b, `document.querySelector("#tab-event .blob-text").textContent`); !strings.HasPrefix(got, stdout.Lines[0]) {
		t.Fatalf("blob shown %q, want it to start with %q", got, stdout.Lines[0])
	}
	b.screenshot(t, "view-demo-event.png")

	// Diff the two attempts: three aligned divergent events (as
	// TestDemoStory finds with runs.DiffRevisions).
	b.do(t, chromedp.Click(`.tabs button[data-tab="runs"]`))
	b.do(t, chromedp.Click(`input[aria-label="A: `+res.Main+`"]`), chromedp.Click(`input[aria-label="B: `+res.Fork+`"]`), chromedp.Click("#diff-go"))
	b.waitJS(t, `document.querySelector("#diff-aligned") !== null`)
	if n := evalJS[int](t, b, `document.querySelectorAll("#diff-aligned tr").length`); n != 1+3 {
		t.Fatalf("diff shows %d rows, want a header and 3 aligned pairs", n)
	}
	b.screenshot(t, "view-demo-diff.png")

	// The promoted run shows its evaluation and its promotion.
	promoted := rel.Promoted.Run
	b.do(t, chromedp.Click(`.tabs button[data-tab="runs"]`))
	b.do(t, chromedp.Click(`#refs tr[data-run="`+promoted+`"] button.link`))
	b.waitJS(t, `document.querySelector("#tab-run h2") !== null`)
	text := evalJS[string](t, b, `document.querySelector("#tab-run").textContent`)
	if !strings.Contains(text, "attestations (1)") || !strings.Contains(text, "evaluation") || !strings.Contains(text, rel.Promoted.Ref) {
		t.Fatalf("run panel: %s", text)
	}
	b.screenshot(t, "view-demo-run.png")

	// The runs table: one row per run, as tine runs lists them; a click
	// on a column sorts by it, a second click reverses.
	tbl, err := compare.BuildTable(ctx, r, compare.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.do(t, chromedp.Click(`.tabs button[data-tab="table"]`))
	b.waitJS(t, `document.querySelectorAll("#runs-table tbody tr").length === `+strconv.Itoa(len(tbl.Rows)))
	col := tbl.Col(compare.ColCost)
	if col < 0 {
		t.Fatal("the runs table has no cost column")
	}
	costs := `[...document.querySelectorAll("#runs-table tbody tr")].map(tr => tr.children[` + strconv.Itoa(col) + `].textContent).filter(s => s !== "").map(Number)`
	for _, step := range []struct{ dir, mark string }{{"ascending", "▲"}, {"descending", "▼"}} {
		dir, mark := step.dir, step.mark
		b.do(t, chromedp.Click(`#runs-table th[data-col="cost"] button`))
		b.waitJS(t, `document.querySelector('#runs-table th[data-col="cost"]').textContent.endsWith("`+mark+`")`)
		got := evalJS[[]float64](t, b, costs)
		if len(got) < 2 {
			t.Fatalf("cost column: %v", got)
		}
		for i := 1; i < len(got); i++ {
			if dir == "ascending" && got[i] < got[i-1] || dir == "descending" && got[i] > got[i-1] {
				t.Fatalf("%s by cost: %v", dir, got)
			}
		}
		if got[0] == got[len(got)-1] {
			t.Fatalf("the demo's costs are all %v: the sort is not tested", got[0])
		}
	}
	b.screenshot(t, "view-demo-table.png")
	b.check(t, base)
}

// TestViewEscapesInBrowser: an event whose tool and error hold markup is
// drawn and shown as text; the page gains no element from it, and the
// strict Content-Security-Policy reports no violation.
func TestViewEscapesInBrowser(t *testing.T) {
	b := newBrowser(t, 1200, 800)
	r := fixture(t)
	g, err := view.BuildGraph(context.Background(), r, view.GraphOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var oid string
	for _, le := range g.Events {
		if le.Tool == hostile {
			oid = le.Event
		}
	}
	if oid == "" {
		t.Fatal("the fixture has no hostile event")
	}
	base := serve(t, r)
	b.do(t, chromedp.Navigate(base))
	b.waitJS(t, "window.tineView.ready === true")
	elements := evalJS[int](t, b, `document.getElementsByTagName("*").length`)
	p := b.nodePoint(t, oid)
	b.do(t, chromedp.MouseClickXY(p.X, p.Y))
	b.waitJS(t, `document.querySelector("#event-fields") !== null`)
	text := evalJS[string](t, b, `document.querySelector("#tab-event").textContent`)
	if !strings.Contains(text, `<script>alert(1)</script>`) || !strings.Contains(text, `\"]) --> x;`) {
		t.Fatalf("the hostile text is not shown as text: %s", text)
	}
	for _, sel := range []string{"script", "img", "a", "iframe", "object"} {
		if n := evalJS[int](t, b, `document.querySelectorAll("main `+sel+`").length`); n != 0 {
			t.Fatalf("the page gained %d <%s> elements", n, sel)
		}
	}
	if n := evalJS[int](t, b, `document.querySelectorAll("script").length`); n != 3 {
		t.Fatalf("%d script elements, want the page's own three", n)
	}
	// The panel added rows and cells for the fields, nothing else.
	if n := evalJS[int](t, b, `document.getElementsByTagName("*").length`); n <= elements {
		t.Fatalf("the event panel did not render (%d elements before, %d after)", elements, n)
	}
	b.check(t, base)
}

// TestViewShowsBidiControls: a tool name holding a right-to-left override
// ("invoice<U+202E>txt.exe", which a browser draws as "invoiceexe.txt")
// is shown with the control spelled out, in the event panel and in the
// labels the canvas draws.
func TestViewShowsBidiControls(t *testing.T) {
	b := newBrowser(t, 1200, 800)
	r := runstest.NewRepo(t)
	runstest.AppendEvent(t, r, "heads/main", `{"kind":"tool","tool":"invoice\u202etxt.exe"}`, runstest.FakeClock(epoch, time.Second))
	oid := runstest.LoadRef(t, r, "heads/main").Events[0].ID.String()
	base := serve(t, r)
	b.do(t, chromedp.Navigate(base))
	b.waitJS(t, "window.tineView.ready === true")
	if got := evalJS[string](t, b, `tine.clip("invoice\u202etxt.exe", 80)`); got != "invoice[U+202E]txt.exe" {
		t.Fatalf("canvas label %q, want the override spelled out", got)
	}
	p := b.nodePoint(t, oid)
	b.do(t, chromedp.MouseClickXY(p.X, p.Y))
	b.waitJS(t, `document.querySelector("#event-fields") !== null`)
	text := evalJS[string](t, b, `document.querySelector("#tab-event").textContent`)
	if !strings.Contains(text, "invoice[U+202E]txt.exe") || strings.ContainsRune(text, '\u202e') {
		t.Fatalf("the event panel shows %q", text)
	}
	b.check(t, base)
}
