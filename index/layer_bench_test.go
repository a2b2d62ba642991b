package index

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
)

// benchRepo is a repository whose catalog holds one run of n events on
// heads/main, and a ref that has since moved to that run plus one new
// event: the state after `tine record` onto a long run. The base's event
// summaries are made up (the refresh never reads them back from objects),
// so building it costs two object writes, not n.
type benchRepo struct {
	*testRepo
	base []byte
}

func newBenchRepo(b *testing.B, n int) *benchRepo {
	r := newTestRepo(b, objects.BLAKE3)
	evs := make([]objects.OID, n)
	d := &data{algo: r.algo, rules: DefaultRules, events: make([]EventSummary, n)}
	for i := range evs {
		evs[i] = objects.OID{Type: objects.TypeEvent, Algo: r.algo, Digest: sha256.Sum256(fmt.Append(nil, i))}
	}
	run0 := r.run(evs)
	r.setRef("heads/main", run0)
	sorted := append([]objects.OID(nil), evs...)
	sortOIDs(sorted)
	pos := make(map[objects.OID]int32, n)
	for i, id := range sorted {
		pos[id] = int32(i)
		d.events[i] = EventSummary{ID: id, Kind: "tool", Label: "bash", Tool: "bash", Cost: 0.01, Exact: true}
	}
	entry := RunEntry{Run: run0, Status: "running", Exact: true, ForkExact: true, Events: make([]int32, n)}
	for i, id := range evs {
		entry.Events[i] = pos[id]
		if i > 0 {
			d.events[pos[id]].parents = []int{int(pos[evs[i-1]])}
		}
	}
	entry.Tips = []int32{pos[evs[n-1]]}
	d.refs = []RefEntry{{Name: "heads/main", ID: run0}}
	d.runs = []RunEntry{entry}
	br := &benchRepo{testRepo: r, base: encode(d)}
	e := r.event("tail", "", evs[n-1])
	r.setRef("heads/main", r.run(append(evs, e)))
	return br
}

// reset puts the base back with no layers on it.
func (r *benchRepo) reset(b *testing.B) {
	if err := writeFile(r.ix.Path(), r.base); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(r.root, filepath.FromSlash(LayerDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := writeCatChain(dir, [32]byte(r.base[len(r.base)-checksumSize:]), nil); err != nil {
		b.Fatal(err)
	}
	if err := r.ix.pruneLayers(dir, nil); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCatalogRefresh times the first catalog load after one append
// onto a run of 1k, 10k and 30k events (refresh), against a load of the
// fresh catalog it leaves (fresh). The refresh writes one layer: the
// bytes it writes (written-B/op) stay flat as the run grows, and its time
// over a fresh load is the new run's event list, compared, not re-read.
func BenchmarkCatalogRefresh(b *testing.B) {
	for _, n := range []int{1000, 10000, 30000} {
		r := newBenchRepo(b, n)
		b.Run(fmt.Sprintf("events=%d/refresh", n), func(b *testing.B) { r.refresh(b, 1) })
		// rewrite: the same refresh writing the whole catalog again, as
		// a compaction (and every update of version 4) does.
		b.Run(fmt.Sprintf("events=%d/rewrite", n), func(b *testing.B) {
			old := compactShare
			compactShare = 1 << 40
			defer func() { compactShare = old }()
			r.refresh(b, 0)
		})
		b.Run(fmt.Sprintf("events=%d/fresh", n), func(b *testing.B) {
			for b.Loop() {
				if _, rep, err := r.ix.Catalog(r.ctx); err != nil || rep.Action != ActionFresh {
					b.Fatalf("load: %+v, %v", rep, err)
				}
			}
		})
	}
}

// refresh times refreshes from the base; each must leave layers layers,
// and reports the bytes written.
func (r *benchRepo) refresh(b *testing.B, layers int) {
	var written int64
	for b.Loop() {
		b.StopTimer()
		r.reset(b)
		b.StartTimer()
		_, rep, err := r.ix.Catalog(r.ctx)
		if err != nil || rep.Action != ActionUpdated || !rep.Saved {
			b.Fatalf("refresh: %+v, %v", rep, err)
		}
		b.StopTimer()
		st, err := r.ix.Status(r.ctx)
		if err != nil || st.Layers != layers {
			b.Fatalf("status: %+v, %v", st, err)
		}
		written += st.LayerBytes
		if layers == 0 {
			written += st.Bytes
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(written)/float64(b.N), "written-B/op")
}
