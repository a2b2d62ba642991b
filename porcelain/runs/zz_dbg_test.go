package runs

import (
	"context"
	"testing"

	"github.com/tinehq/tine/plumbing"
)

func BenchmarkDbgLog(b *testing.B) {
	for b.Loop() {
		r, err := plumbing.Open("/tmp/hist/T30")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Log(context.Background(), r, LogOptions{Rev: "heads/main", Limit: 20}); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}
func BenchmarkDbgDiff(b *testing.B) {
	for b.Loop() {
		r, err := plumbing.Open("/tmp/hist/T30")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := DiffRevisions(context.Background(), r, "heads/main", "heads/div", DiffOptions{}); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}
