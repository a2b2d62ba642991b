package runs_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// BenchmarkAppendOneAtATime appends BENCH_APPEND_EVENTS events (default
// 1,000) to one run, one AppendEvent each (what tine record does after the
// command ran), in a fresh repository, and reports the object storage per
// event (stored-B/event: loose files and storage packs), the time per
// append, and the time to read the newest run object in a fresh process's
// handle (read-ns): with runs stored whole, storage grows with the square
// of the run's length.
func BenchmarkAppendOneAtATime(b *testing.B) {
	n := 1000
	if s := os.Getenv("BENCH_APPEND_EVENTS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		r := newRepo(b)
		b.StartTimer()
		start := time.Now()
		var last string
		for i := range n {
			res, err := runs.AppendEvent(ctx, r, runs.AppendEventOptions{
				Data: fmt.Appendf(nil, `{"kind":"tool","tool":"step","output":"event %d of a long run"}`, i)})
			if err != nil {
				b.Fatal(err)
			}
			last = res.Run
		}
		elapsed := time.Since(start)
		b.StopTimer()
		stored := objectBytes(b, r)
		fresh, err := plumbing.Open(r.Root())
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if _, err := fresh.Objects().Get(ctx, mustOID(b, last)); err != nil {
			b.Fatal(err)
		}
		read := time.Since(t0)
		fresh.Close()
		b.ReportMetric(float64(stored)/float64(n), "stored-B/event")
		b.ReportMetric(float64(elapsed.Nanoseconds())/float64(n), "ns/append")
		b.ReportMetric(float64(read.Nanoseconds()), "read-ns")
		b.StartTimer()
	}
}
