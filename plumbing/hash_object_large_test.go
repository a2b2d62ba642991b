package plumbing

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tinehq/tine/objects"
)

// A blob file past StreamThreshold is hashed and stored without being read
// into memory: the bytes allocated while storing a 64 MiB file stay far
// below its size (TotalAlloc bounds the peak heap from above), and the
// stored blob reads back with the oid of its whole content.
func TestHashObjectLargeFileConstantMemory(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	const size = 64 << 20
	path := filepath.Join(t.TempDir(), "big.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	rand.Read(chunk)
	for i := range size / len(chunk) {
		chunk[0] = byte(i) // distinct megabytes
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := HashObject(context.Background(), r, HashObjectOptions{Write: true, Paths: []string{path}})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("storing a %d-byte file allocated %d bytes; want constant memory", size, alloc)
	}
	got := res.Objects[0]
	if got.Size != size || !got.Written {
		t.Fatalf("result %+v", got)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := objects.NewBlob(r.Algo(), data).ID
	if got.OID != want.String() {
		t.Fatalf("oid %s, want %s", got.OID, want)
	}
	if has, err := r.Objects().Has(context.Background(), want); !has || err != nil {
		t.Fatalf("blob not stored: %v", err)
	}
	// Hashing alone (no -w) streams too and agrees.
	res, err = HashObject(context.Background(), nil, HashObjectOptions{Paths: []string{path}})
	if err != nil || res.Objects[0].OID != want.String() || res.Objects[0].Written {
		t.Fatalf("hash only: %+v %v", res, err)
	}
}
