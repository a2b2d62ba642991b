package loose

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/zeebo/blake3"
)

// benchLargeSize is the file BenchmarkLargeBlob stores and
// BenchmarkRawBLAKE3 hashes; bench/run.sh uses 1 GiB, which is too slow
// for `go test -bench` at its default -benchtime.
const benchLargeSize = 64 << 20

// benchLargeFile writes benchLargeSize incompressible bytes to a file and
// reads it once, so both benchmarks start from the page cache.
func benchLargeFile(b *testing.B) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), "large.bin")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	// Written a megabyte at a time, so the benchmark's peak RSS is the
	// store's, not the test data's.
	buf := make([]byte, 1<<20)
	rng := rand.NewChaCha8([32]byte{'t', 'i', 'n', 'e'})
	for range benchLargeSize / len(buf) {
		rng.Read(buf)
		if _, err := f.Write(buf); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkRawBLAKE3 is the ceiling for BenchmarkLargeBlob: the file read
// through the same 256 KiB buffer and hashed, nothing stored.
func BenchmarkRawBLAKE3(b *testing.B) {
	p := benchLargeFile(b)
	b.SetBytes(benchLargeSize)
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		h := blake3.New()
		if n, err := io.CopyBuffer(h, f, make([]byte, 256<<10)); err != nil || n != benchLargeSize {
			b.Fatalf("hashed %d bytes: %v", n, err)
		}
		f.Close()
		h.Sum(nil)
	}
}

// BenchmarkLargeBlob stores the file as a blob through the streaming
// writer `tine hash-object -w` uses for large files (hash while writing,
// fsync, rename), into a fresh store each iteration. B/op shows that
// memory does not grow with the file; peak-RSS-MiB is the test process's
// peak resident memory (the store's blocks are mapped outside the Go heap,
// so B/op does not count them).
func BenchmarkLargeBlob(b *testing.B) {
	benchLargeBlob(b, func(f *os.File) io.Reader { return f })
}

// BenchmarkLargeBlobRedactedAhead is BenchmarkLargeBlob through the
// reader `tine hash-object -w` streams a file with: scrubbed chunk by
// chunk, and read ahead on another goroutine into the store's blocks.
func BenchmarkLargeBlobRedactedAhead(b *testing.B) {
	benchLargeBlob(b, func(f *os.File) io.Reader { return objects.NewRedactChunksAhead(f) })
}

// benchLargeBlob stores the benchmark file through the reader wrap makes.
func benchLargeBlob(b *testing.B, wrap func(*os.File) io.Reader) {
	p := benchLargeFile(b)
	ctx := context.Background()
	b.SetBytes(benchLargeSize)
	b.ReportAllocs()
	var first objects.OID
	for b.Loop() {
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), "objects")
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		s, err := Open(dir, objects.BLAKE3)
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		id, err := s.PutBlobFrom(ctx, wrap(f))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		f.Close()
		if first.IsZero() {
			first = id
		} else if id != first {
			b.Fatalf("same file stored as %s, then %s", first, id)
		}
		b.StartTimer()
	}
	if mib, ok := peakRSSMiB(); ok {
		b.ReportMetric(mib, "peak-RSS-MiB")
	}
}
