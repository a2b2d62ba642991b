package plumbing

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkReadShuffledPacked reads every object of a one-pack repository
// through cat-object --batch in a shuffled order (git cat-file --batch
// with shuffled input), so nearly no two consecutive queries share a
// pack block: the random-read path, decompression and cache included.
func BenchmarkReadShuffledPacked(b *testing.B) {
	r, oids := benchPackedRepo(b, benchJSONFiles(b, benchScale))
	lines := strings.SplitAfter(oids, "\n")
	lines = lines[:len(lines)-1]
	rng := rand.New(rand.NewPCG(3, 4))
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	shuffled := strings.Join(lines, "")
	ctx := context.Background()
	var hdr []byte
	for b.Loop() {
		n := 0
		res, err := CatObjectBatch(ctx, r, CatBatchOptions{Input: strings.NewReader(shuffled)}, func(e CatBatchEntry) error {
			hdr = e.AppendHeader(hdr[:0])
			n += len(hdr) + len(e.Object.Body) + 1
			return nil
		})
		if err != nil || res.Objects != benchScale || n < benchScale*1000 {
			b.Fatalf("read %+v (%d bytes): %v", res, n, err)
		}
	}
	reportObjects(b, benchScale)
}
