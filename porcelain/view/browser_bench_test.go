package view_test

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/runs/runstest"
	"github.com/tinehq/tine/porcelain/view"
)

// tenThousand builds a repository of 10,000 events: a run of 5,000 and
// ten forks of it with 500 events each.
func tenThousand(b *testing.B) *plumbing.Repo {
	r := runstest.NewRepo(b)
	chain(b, r, "heads/main", 5000, 1767323045)
	for k := range 10 {
		ref := "experiments/f" + strconv.Itoa(k)
		_, err := runs.Fork(b.Context(), r, runs.ForkOptions{Source: "heads/main", From: "heads/main~" + strconv.Itoa(400*k+100), Ref: ref})
		if err != nil {
			b.Fatal(err)
		}
		chain(b, r, ref, 500, 1767400000+1000*k)
	}
	return r
}

// BenchmarkViewSnapshot10k measures what tine view does before it serves
// (and again when the refs move): the graph of 10,000 events and its
// lane layout.
func BenchmarkViewSnapshot10k(b *testing.B) {
	r := tenThousand(b)
	b.ResetTimer()
	for range b.N {
		g, err := view.BuildGraph(b.Context(), r, view.GraphOptions{All: true})
		if err != nil {
			b.Fatal(err)
		}
		if l := view.NewLayout(g); len(l.Rows) < 10000 {
			b.Fatalf("%d rows", len(l.Rows))
		}
	}
}

// BenchmarkViewFirstFrame10k loads the view of 10,000 events (a run of
// 5,000 and ten forks of it with 500 events each) in headless Chromium
// and reports the time from navigation to the first frame with nodes
// drawn (ms/first-frame; the issue asks for under 2 s). The server's
// snapshot is built before the timer starts, as tine view builds it
// before it prints its address.
func BenchmarkViewFirstFrame10k(b *testing.B) {
	br := newBrowser(b, 1400, 1000)
	base := serve(b, tenThousand(b))
	var total float64
	b.ResetTimer()
	for range b.N {
		br.do(b, chromedp.Navigate(base))
		br.waitJS(b, "window.tineView.ready === true")
		if n := evalJS[int](b, br, "window.tineView.events"); n != 10000 {
			b.Fatalf("the page knows %d events, want 10000", n)
		}
		total += evalJS[float64](b, br, "window.tineView.firstFrameMs")
	}
	b.StopTimer()
	b.ReportMetric(total/float64(b.N), "ms/first-frame")
	br.check(b, base)
}
