package pack

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// spBenchVariants are the block layouts the package doc compares.
var spBenchVariants = []struct {
	name string
	opt  Options
}{
	{"frames", Options{BlockSize: -1}},
	{"block4k", Options{BlockSize: 4 << 10}},
	{"block8k", Options{BlockSize: 8 << 10}},
	{"block16k", Options{BlockSize: 16 << 10}},
	{"block32k", Options{BlockSize: 32 << 10}},
}

// BenchmarkStoragePackWrite writes b.N ~1 KiB events into one pack (commit
// and fsyncs included) and reports the compression ratio.
func BenchmarkStoragePackWrite(b *testing.B) {
	for _, v := range spBenchVariants {
		b.Run(v.name, func(b *testing.B) {
			objs := make([]*objects.Object, b.N)
			raw := 0
			for i := range objs {
				objs[i] = spTestEvent(b, objects.BLAKE3, i)
				raw += len(objs[i].Body) + 45
			}
			dir := b.TempDir()
			b.SetBytes(int64(raw / b.N))
			b.ResetTimer()
			var name string
			spMeasureCPU(b, b.N, func() {
				w, err := NewWriter(dir, objects.BLAKE3, v.opt)
				if err != nil {
					b.Fatal(err)
				}
				for _, o := range objs {
					if err := w.Add(o); err != nil {
						b.Fatal(err)
					}
				}
				if name, err = w.Commit(); err != nil {
					b.Fatal(err)
				}
			})
			b.StopTimer()
			fi, err := os.Stat(filepath.Join(dir, name+".pack"))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(raw)/float64(fi.Size()), "ratio")
		})
	}
}

// spBenchStore writes n events in one pack with opt and opens it.
func spBenchStore(b *testing.B, n int, opt Options) (*Store, []*objects.Object) {
	objs := make([]*objects.Object, n)
	for i := range objs {
		objs[i] = spTestEvent(b, objects.BLAKE3, i)
	}
	dir := b.TempDir()
	s, err := Open(dir, objects.BLAKE3)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if _, err := s.WritePack(context.Background(), objs, opt); err != nil {
		b.Fatal(err)
	}
	return s, objs
}

// BenchmarkStoragePackGet reads random objects of a 20k-object pack:
// CRC, decompression, envelope decode and re-hash.
func BenchmarkStoragePackGet(b *testing.B) {
	for _, v := range spBenchVariants {
		b.Run(v.name, func(b *testing.B) {
			s, objs := spBenchStore(b, 20000, v.opt)
			r := rand.New(rand.NewPCG(1, 1))
			ctx := context.Background()
			b.ResetTimer()
			spMeasureCPU(b, b.N, func() {
				for range b.N {
					if _, err := s.Get(ctx, objs[r.IntN(len(objs))].ID); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkStoragePackGetParallel is BenchmarkStoragePackGet with the
// default layout on every core.
func BenchmarkStoragePackGetParallel(b *testing.B) {
	s, objs := spBenchStore(b, 20000, Options{})
	ctx := context.Background()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		r := rand.New(rand.NewPCG(rand.Uint64(), 1))
		for pb.Next() {
			if _, err := s.Get(ctx, objs[r.IntN(len(objs))].ID); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStoragePackVerify verifies a 20k-object pack (fsck's path: pack
// order, each block decoded once) and reports the time per object.
func BenchmarkStoragePackVerify(b *testing.B) {
	s, objs := spBenchStore(b, 20000, Options{})
	name := spPackNames(b, s)[0]
	b.ResetTimer()
	spMeasureCPU(b, b.N*len(objs), func() {
		for range b.N {
			if n, err := s.Verify(context.Background(), name); err != nil || n != len(objs) {
				b.Fatal(n, err)
			}
		}
	})
}

// BenchmarkStoragePackHas measures an index lookup of a present object.
func BenchmarkStoragePackHas(b *testing.B) {
	s, objs := spBenchStore(b, 20000, Options{})
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if ok, _ := s.Has(ctx, objs[i%len(objs)].ID); !ok {
			b.Fatal("missing")
		}
	}
}

// BenchmarkStoragePackGetShuffled reads every object of a 20k-object pack
// once per iteration in a shuffled order (cat-object --batch with shuffled
// input) on a fresh store, and reports the block cache's size at the end:
// it grows to the decoded size of the blocks read again, within its bound.
func BenchmarkStoragePackGetShuffled(b *testing.B) {
	_, objs := spBenchStore(b, 20000, Options{})
	dir := b.TempDir()
	if _, err := spCommit(dir, objects.BLAKE3, objs); err != nil {
		b.Fatal(err)
	}
	order := rand.New(rand.NewPCG(5, 6)).Perm(len(objs))
	ctx := context.Background()
	cacheBytes := 0
	b.ResetTimer()
	spMeasureCPU(b, b.N*len(objs), func() {
		for range b.N {
			s, err := Open(dir, objects.BLAKE3)
			if err != nil {
				b.Fatal(err)
			}
			for _, i := range order {
				if _, err := s.Get(ctx, objs[i].ID); err != nil {
					b.Fatal(err)
				}
			}
			_, cacheBytes = s.cache.stats()
			s.Close()
		}
	})
	b.ReportMetric(float64(cacheBytes)/(1<<20), "cache-MiB")
}

// BenchmarkStoragePackAppend commits one small pack per op as an append
// of tine record does: an event and its run (a delta on the run before,
// runs of up to 50 events), then MergeSmall past 8 packs. It is the
// per-commit cost every record pays (two fsyncs, two renames, the
// directory lock and, every few ops, a merge); cpu-µs/op is the steadier
// figure on a loaded machine.
func BenchmarkStoragePackAppend(b *testing.B) {
	ctx := context.Background()
	a := objects.BLAKE3
	type step struct {
		objs []*objects.Object
		base objects.OID
	}
	steps := make([]step, b.N)
	var ids []string
	var base objects.OID
	for i := range steps {
		if i%50 == 0 {
			ids, base = nil, objects.OID{}
		}
		ev := spTestEvent(b, a, i)
		ids = append(ids, `"`+ev.ID.String()+`"`)
		body := fmt.Appendf(nil, `{"created_at":1700000000,"events":[%s],"roots":[%s],"status":"running","tips":[%s],"title":"t"}`,
			strings.Join(ids, ","), ids[0], ids[len(ids)-1])
		run, err := objects.NewObjectFromBody(a, objects.TypeRun, 1, body)
		if err != nil {
			b.Fatal(err)
		}
		steps[i] = step{[]*objects.Object{ev, run}, base}
		base = run.ID
	}
	s, err := Open(b.TempDir(), a)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	spMeasureCPU(b, b.N, func() {
		for _, st := range steps {
			if _, err := s.WriteAppendPack(ctx, st.objs, st.base); err != nil {
				b.Fatal(err)
			}
			if _, err := s.MergeSmall(ctx, 8); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStoragePackLock takes and releases the directory lock shared,
// as every commit does once (lock.go): its cost next to a commit's.
func BenchmarkStoragePackLock(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		release, err := lockDir(dir, false)
		if err != nil {
			b.Fatal(err)
		}
		release()
	}
}
