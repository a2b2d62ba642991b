package loose_test

import (
	"encoding/binary"
	"testing"

	"github.com/tinehq/tine/objects"
)

// benchBlob returns a distinct ~1 KiB blob for index i.
func benchBlob(a objects.Algo, i int) *objects.Object {
	data := make([]byte, 1024)
	for j := 0; j < len(data); j += 8 {
		binary.LittleEndian.PutUint64(data[j:], uint64(i)*0x9e3779b97f4a7c15+uint64(j))
	}
	return objects.NewBlob(a, data)
}

func BenchmarkLoosePut(b *testing.B) {
	s := newLoose(b, objects.BLAKE3)
	ctx := b.Context()
	i := 0
	b.SetBytes(1024)
	for b.Loop() {
		if err := s.Put(ctx, benchBlob(objects.BLAKE3, i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkLoosePutBatch(b *testing.B) {
	const size = 256
	s := newLoose(b, objects.BLAKE3)
	ctx := b.Context()
	i := 0
	b.SetBytes(1024 * size)
	batch := make([]*objects.Object, size)
	for b.Loop() {
		for j := range batch {
			batch[j] = benchBlob(objects.BLAKE3, i)
			i++
		}
		if err := s.PutBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/object")
}

func BenchmarkLoosePutExisting(b *testing.B) {
	s := newLoose(b, objects.BLAKE3)
	ctx := b.Context()
	o := benchBlob(objects.BLAKE3, 0)
	if err := s.Put(ctx, o); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := s.Put(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLooseGet(b *testing.B) {
	const n = 1000
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		b.Run(string(a), func(b *testing.B) {
			s := newLoose(b, a)
			ids := make([]objects.OID, n)
			batch := make([]*objects.Object, n)
			for i := range batch {
				batch[i] = benchBlob(a, i)
				ids[i] = batch[i].ID
			}
			if err := s.PutBatch(b.Context(), batch); err != nil {
				b.Fatal(err)
			}
			ctx := b.Context()
			b.SetBytes(1024)
			i := 0
			for b.Loop() {
				if _, err := s.Get(ctx, ids[i%n]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
