package objects

import (
	"bytes"
	"compress/zlib"
	"runtime"
	"testing"
)

// zlibFrame is a TINEPACK3 frame whose zlib stream inflates to size zero
// bytes (the digest is not checked before the inflate bound is).
func zlibFrame(t testing.TB, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString(PackMagic)
	buf.Write(make([]byte, 32))
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	zeros := make([]byte, 1<<20)
	for left := size; left > 0; left -= len(zeros) {
		if _, err := zw.Write(zeros[:min(left, len(zeros))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// allocated returns the bytes f allocates. TotalAlloc only grows, so it
// bounds the peak heap f reaches from above, whatever the GC does.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestInspectPackBombMemory pins issue 10 item 9: a zlib bomb past the
// real 256 MiB bound is refused holding far less than 1.5 times the bound
// (it reached about 1 GB RSS, a doubling buffer's growth), and a
// legitimate large manifest costs about its own size, not a multiple.
func TestInspectPackBombMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("inflates 260 MiB")
	}
	frame := zlibFrame(t, MaxPackBodyBytes+4<<20)
	var err error
	alloc := allocated(func() { _, err = InspectPack(frame, SHA256) })
	if !HasReason(err, ReasonPackOversized) {
		t.Fatalf("bomb: %v, want pack.oversized", err)
	}
	if limit := uint64(MaxPackBodyBytes) * 3 / 2; alloc > limit {
		t.Fatalf("refusing the bomb allocated %d bytes, more than 1.5x the %d-byte bound", alloc, MaxPackBodyBytes)
	}
	t.Logf("refusing a %d-byte bomb allocated %d bytes", MaxPackBodyBytes+4<<20, alloc)

	const size = 32 << 20
	stream := zlibFrame(t, size)[PackHeaderSize:]
	var body []byte
	alloc = allocated(func() { body, err = inflatePack(stream, MaxPackBodyBytes) })
	if err != nil || len(body) != size {
		t.Fatalf("inflate %d bytes: %d bytes, %v", size, len(body), err)
	}
	if alloc > size+size/8 {
		t.Fatalf("inflating a %d-byte manifest allocated %d bytes, want about its size", size, alloc)
	}
}
