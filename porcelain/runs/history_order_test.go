package runs

import (
	"context"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestUpdateHistoryIndexesBasesFirst: a run and the longer run that
// extends it, the longer met first in ref order (heads/ before tags/),
// are indexed reading each event once: the shorter first, whole, then
// only the longer one's 10 own events. In ref order the longer was
// indexed whole (1,010 reads) and the shorter, finding no indexed run
// ending inside it, whole again (1,000 more).
func TestUpdateHistoryIndexesBasesFirst(t *testing.T) {
	ctx := context.Background()
	r := lazyRepo(t)
	base := writeChain(t, r, "tags/b", nil, 1000, "m", false)
	writeChain(t, r, "heads/a", base, 10, "x", false)
	c := newCounting(r.Objects())
	rep, err := updateHistory(ctx, r, c)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 2 || rep.Events != 1010 {
		t.Fatalf("report %+v, want 2 runs added holding 1,010 events", rep)
	}
	if n, most := c.of(objects.TypeEvent); n != 1010 || most != 1 {
		t.Fatalf("indexing read %d events (one up to %d times), want 1,010 once each", n, most)
	}
}
