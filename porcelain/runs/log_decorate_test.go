package runs_test

import (
	"context"
	"testing"
	"time"

	"github.com/tinehq/tine/porcelain/runs"
)

// TestLogDecoratesOnlyCurrentRefValue: `log main~1` shows an older run, so
// its newest event must not be labelled with heads/main, which points at a
// newer run; `log main` labels its tip.
func TestLogDecoratesOnlyCurrentRefValue(t *testing.T) {
	r := newRepo(t)
	now := fakeClock(time.Unix(1767225600, 0), time.Second)
	appendEvent(t, r, "heads/main", `{"kind":"human"}`, now)
	appendEvent(t, r, "heads/main", `{"kind":"human","attributes":{"n":2}}`, now)
	for rev, want := range map[string]int{"heads/main": 1, "heads/main~1": 0, "heads/main@{1}": 0} {
		res, err := runs.Log(context.Background(), r, runs.LogOptions{Rev: rev})
		if err != nil {
			t.Fatal(rev, err)
		}
		if got := len(res.Entries[0].Refs); got != want {
			t.Errorf("log %s: newest entry decorated with %v, want %d refs", rev, res.Entries[0].Refs, want)
		}
	}
}
