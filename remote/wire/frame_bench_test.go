package wire

import (
	"fmt"
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
