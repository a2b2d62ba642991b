package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// benchFrameObjects returns n blobs of about 700 bytes, the size of the
// bench harness's event output blobs.
func benchFrameObjects(n int) []*objects.Object {
	out := make([]*objects.Object, n)
	for i := range out {
		out[i] = objects.NewBlob(objects.BLAKE3, fmt.Appendf(nil, "%0700d", i))
	}
	return out
}

// BenchmarkWriteFrameUncompressed is the loopback push's frame of 20,000
// objects (about 14 MiB).
func BenchmarkWriteFrameUncompressed(b *testing.B) {
	objs := benchFrameObjects(20000)
	lim := objects.PackLimits{Objects: TineMaxPackObjects, Shallow: TineMaxShallow}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := WriteFrame(objs, nil, lim, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFrameUncompressed reads that frame back.
func BenchmarkReadFrameUncompressed(b *testing.B) {
	lim := objects.PackLimits{Objects: TineMaxPackObjects, Shallow: TineMaxShallow}
	frame, _, err := WriteFrame(benchFrameObjects(20000), nil, lim, false)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFrame(frame, objects.BLAKE3, lim); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadFrameReportsFirstBadEntry: a frame decoded on several CPUs
// still names the entry a reader going in order meets first: a bad
// envelope before a repeat, a repeat before a bad envelope, and a
// truncated entry after a bad one.
func TestReadFrameReportsFirstBadEntry(t *testing.T) {
	objs := benchFrameObjects(3 * parallelEntries)
	lim := objects.PackLimits{Objects: TineMaxPackObjects, Shallow: TineMaxShallow}
	build := func(edit func(entries [][]byte) [][]byte, truncate int) []byte {
		entries := make([][]byte, len(objs))
		for i, o := range objs {
			entries[i] = o.Stored()
		}
		entries = edit(entries)
		body := binary.AppendUvarint(nil, uint64(len(entries)))
		body = binary.AppendUvarint(body, 0)
		for _, e := range entries {
			body = binary.AppendUvarint(body, uint64(len(e)))
			body = append(body, e...)
		}
		return sealRaw(body[:len(body)-truncate])
	}
	bad := []byte("not an envelope")
	for _, c := range []struct {
		name     string
		edit     func([][]byte) [][]byte
		truncate int
		want     string
	}{
		{"bad then repeat", func(e [][]byte) [][]byte { e[700] = bad; e[1100] = e[3]; return e }, 0, "objects[700]:"},
		{"repeat then bad", func(e [][]byte) [][]byte { e[1100] = bad; e[700] = e[3]; return e }, 0, "objects[700], "},
		{"bad then truncated", func(e [][]byte) [][]byte { e[1000] = bad; return e }, 10, "objects[1000]:"},
		{"truncated", func(e [][]byte) [][]byte { return e }, 10, fmt.Sprintf("objects[%d]: ", len(objs)-1)},
	} {
		_, err := ReadFrame(build(c.edit, c.truncate), objects.BLAKE3, lim)
		if !errors.Is(err, ErrBadFrame) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an ErrBadFrame naming %q", c.name, err, c.want)
		}
	}
	if _, err := ReadFrame(build(func(e [][]byte) [][]byte { return e }, 0), objects.BLAKE3, lim); err != nil {
		t.Fatalf("intact frame: %v", err)
	}
}
