package plumbing

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// The benchmarks of the operations bench/run.sh compares with git, at a
// scale that fits `go test -bench`: benchScale objects per data set. Each
// reports objects/s, so figures at different scales stay comparable.
const benchScale = 10000

// benchRefs is the number of ref updates in one BenchmarkRefStream
// transaction (the harness's figure).
const benchRefs = 1000

// benchWords is the vocabulary of the generated JSON, as in bench/gendata.
var benchWords = strings.Fields(`the a run event tool call output error retry model token cost step
loop agent plan patch test build pass fail file line diff commit read write search result score`)

// benchJSONFiles writes n distinct event-shaped JSON files of about 1 KiB
// and returns their newline-terminated path list.
func benchJSONFiles(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var list strings.Builder
	for i := range n {
		body := fmt.Appendf(nil, `{"kind":"tool","seq":%d,"tokens":{"in":%d,"out":%d},"output":"`, i, rng.IntN(20000), rng.IntN(4000))
		for len(body) < 1000 {
			body = append(body, benchWords[rng.IntN(len(benchWords))]...)
			body = append(body, ' ')
		}
		body = append(body, `"}`...)
		p := filepath.Join(dir, fmt.Sprintf("e%06d.json", i))
		if err := os.WriteFile(p, body, 0o644); err != nil {
			b.Fatal(err)
		}
		list.WriteString(p + "\n")
	}
	return list.String()
}

// benchWrite stores the files of list in r through `hash-object -w
// --stdin-paths` and returns the oids, one per line.
func benchWrite(b *testing.B, r *Repo, list string) string {
	b.Helper()
	var oids strings.Builder
	_, err := HashObjectPaths(context.Background(), r, HashPathsOptions{Write: true, Paths: strings.NewReader(list)}, func(h HashedObject) error {
		oids.WriteString(h.OID + "\n")
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return oids.String()
}

// benchPackedRepo returns a repository holding the files of list in one
// storage pack (written, then `repack -d`), and the oid list.
func benchPackedRepo(b *testing.B, list string) (*Repo, string) {
	b.Helper()
	r := newRepo(b, objects.BLAKE3)
	b.Cleanup(func() { r.Close() })
	oids := benchWrite(b, r, list)
	if _, err := Repack(context.Background(), r, RepackOptions{Delete: true}); err != nil {
		b.Fatal(err)
	}
	return r, oids
}

// reportObjects reports the objects handled per second.
func reportObjects(b *testing.B, n int) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
}

// BenchmarkBulkWrite stores benchScale distinct ~1 KiB JSON files per
// iteration into a fresh repository (git hash-object -w --stdin-paths).
func BenchmarkBulkWrite(b *testing.B) {
	list := benchJSONFiles(b, benchScale)
	for b.Loop() {
		b.StopTimer()
		r := newRepo(b, objects.BLAKE3)
		b.StartTimer()
		if got := strings.Count(benchWrite(b, r, list), "\n"); got != benchScale {
			b.Fatalf("wrote %d objects, want %d", got, benchScale)
		}
		b.StopTimer()
		r.Close()
		b.StartTimer()
	}
	reportObjects(b, benchScale)
}

// BenchmarkFsckPacked checks a repository of benchScale objects in one
// pack (git fsck --full).
func BenchmarkFsckPacked(b *testing.B) {
	r, _ := benchPackedRepo(b, benchJSONFiles(b, benchScale))
	ctx := context.Background()
	for b.Loop() {
		res, err := Fsck(ctx, r, FsckOptions{})
		if err != nil || !res.OK() || res.Objects != benchScale {
			b.Fatalf("fsck: %+v, %v", res, err)
		}
	}
	reportObjects(b, benchScale)
}

// BenchmarkReadAllPacked reads every object of a packed repository back
// through cat-object --batch, in write order (git cat-file --batch).
func BenchmarkReadAllPacked(b *testing.B) {
	r, oids := benchPackedRepo(b, benchJSONFiles(b, benchScale))
	ctx := context.Background()
	var hdr []byte
	for b.Loop() {
		n := 0
		res, err := CatObjectBatch(ctx, r, CatBatchOptions{Input: strings.NewReader(oids)}, func(e CatBatchEntry) error {
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

// BenchmarkRepack packs a repository as `hash-object -w --stdin-paths`
// left it (several batch packs) into one pack, deleting the old ones (git
// repack -ad). Each iteration starts from a fresh copy.
func BenchmarkRepack(b *testing.B) {
	list := benchJSONFiles(b, benchScale)
	base := newRepo(b, objects.BLAKE3)
	benchWrite(b, base, list)
	base.Close()
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), DirName)
		if err := os.CopyFS(dir, os.DirFS(base.Root())); err != nil {
			b.Fatal(err)
		}
		r, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := Repack(ctx, r, RepackOptions{Delete: true})
		if err != nil || res.Objects != benchScale || res.Packs != 1 {
			b.Fatalf("repack: %+v, %v", res, err)
		}
		b.StopTimer()
		r.Close()
		b.StartTimer()
	}
	reportObjects(b, benchScale)
}

// BenchmarkRefStream creates benchRefs refs in one update-ref --stdin
// transaction on a fresh repository (git update-ref --stdin).
func BenchmarkRefStream(b *testing.B) {
	ctx := context.Background()
	blobs := make([]*objects.Object, benchRefs)
	var stream bytes.Buffer
	for i := range blobs {
		blobs[i] = objects.NewBlob(objects.BLAKE3, fmt.Appendf(nil, "target %d", i))
		fmt.Fprintf(&stream, "create tags/bench/%05d %s\n", i, blobs[i].ID)
	}
	for b.Loop() {
		b.StopTimer()
		r := newRepo(b, objects.BLAKE3)
		if err := objects.PutAll(ctx, r.Objects(), blobs); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := UpdateRefStdin(ctx, r, UpdateRefStdinOptions{Input: bytes.NewReader(stream.Bytes())})
		if err != nil || len(res.Changes) != benchRefs {
			b.Fatalf("update-ref --stdin: %v", err)
		}
		b.StopTimer()
		r.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(benchRefs)*float64(b.N)/b.Elapsed().Seconds(), "refs/s")
}

// BenchmarkCatObjectBatchLoose is BenchmarkReadAllPacked over loose
// objects, the baseline the packs are measured against.
func BenchmarkCatObjectBatchLoose(b *testing.B) {
	list := benchJSONFiles(b, benchScale)
	r := newRepo(b, objects.BLAKE3)
	var oids strings.Builder
	_, err := HashObjectPaths(context.Background(), r, HashPathsOptions{Write: true, Paths: strings.NewReader(list), Store: r.Loose()}, func(h HashedObject) error {
		oids.WriteString(h.OID + "\n")
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		res, err := CatObjectBatch(ctx, r, CatBatchOptions{Input: strings.NewReader(oids.String())}, func(e CatBatchEntry) error {
			_, err := io.Discard.Write(e.Object.Body)
			return err
		})
		if err != nil || res.Objects != benchScale {
			b.Fatalf("read %+v: %v", res, err)
		}
	}
	reportObjects(b, benchScale)
}
