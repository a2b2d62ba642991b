package plumbing

import (
	"context"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// BenchmarkBulkWriteSHA256 stores benchScale distinct ~1 KiB JSON files per
// iteration through `hash-object -w --stdin-paths` into a fresh sha256
// repository: "loose" is the default (every object a loose file, batched:
// temp files written and fsynced concurrently, renamed, each directory
// fsynced once per batch), "loose-8192" the same with larger batches,
// "packs" the storage-packs opt-in and "one-by-one" one Put (one
// round of fsyncs) per object, the cost batching avoids.
func BenchmarkBulkWriteSHA256(b *testing.B) {
	list := benchJSONFiles(b, benchScale)
	modes := []struct {
		name  string
		packs bool
		opt   BulkOptions
	}{{"loose", false, BulkOptions{}}, {"loose-8192", false, BulkOptions{MaxObjects: 8192}}, {"packs", true, BulkOptions{}}}
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				r := newRepo(b, objects.SHA256)
				if m.packs {
					packsOn(b, r)
				}
				b.StartTimer()
				_, err := HashObjectPaths(context.Background(), r, HashPathsOptions{Write: true, Paths: strings.NewReader(list), Bulk: m.opt}, func(HashedObject) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				r.Close()
				b.StartTimer()
			}
			reportObjects(b, benchScale)
		})
	}
	b.Run("one-by-one", func(b *testing.B) {
		paths := strings.Fields(list)
		for b.Loop() {
			b.StopTimer()
			r := newRepo(b, objects.SHA256)
			b.StartTimer()
			for _, p := range paths {
				_, err := HashObjectPaths(context.Background(), r, HashPathsOptions{Write: true, Paths: strings.NewReader(p + "\n")}, func(HashedObject) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			r.Close()
			b.StartTimer()
		}
		reportObjects(b, benchScale)
	})
}
