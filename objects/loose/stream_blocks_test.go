package loose_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
)

// TestLooseStreamBlockEdges: a streamed blob is stored byte for byte and
// named by the oid of its whole body, whatever its size relative to the
// 4 KiB alignment and the blocks (the 44-byte header shifts every
// block), through direct I/O and through the page cache, from a plain
// reader, a reader returning a byte at a time and the chunked redacting
// reader.
func TestLooseStreamBlockEdges(t *testing.T) {
	const block = loose.BlockSize
	rng := rand.New(rand.NewPCG(4, 20))
	data := make([]byte, 3*block+5000)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	sizes := []int{0, 1, 4051, 4052, 4096, block - 45, block - 44, block - 43, block, 2*block + 4096 - 44, len(data)}
	for _, direct := range []bool{true, false} {
		t.Run(fmt.Sprintf("direct=%v", direct), func(t *testing.T) {
			defer loose.SetDirectIO(loose.SetDirectIO(direct))
			s := newLoose(t, objects.BLAKE3)
			for i, n := range sizes {
				body := data[:n]
				var r io.Reader = bytes.NewReader(body)
				switch i % 3 {
				case 1:
					r = iotest.OneByteReader(r)
					if n > 1<<20 {
						r = iotest.HalfReader(bytes.NewReader(body))
					}
				case 2:
					r = objects.NewRedactChunks(r) // random bytes: nothing to scrub
				}
				id, err := s.PutBlobFrom(t.Context(), r)
				if err != nil {
					t.Fatalf("%d bytes: %v", n, err)
				}
				if want := objects.NewBlob(objects.BLAKE3, body).ID; id != want {
					t.Fatalf("%d bytes: oid %s, want %s", n, id, want)
				}
				got, err := s.Get(t.Context(), id)
				if err != nil || !bytes.Equal(got.Body, body) {
					t.Fatalf("%d bytes: stored body differs (%v)", n, err)
				}
			}
			assertNoTemp(t, s)
		})
	}
}

// countReader counts the bytes read from it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestLooseStreamRefusedEarly: a stream past the size bound is refused
// once the reader passes the bound, not after reading the whole input,
// and leaves neither an object nor a temporary file.
func TestLooseStreamRefusedEarly(t *testing.T) {
	s := newLoose(t, objects.BLAKE3)
	s.SetMaxSize(8 << 20)
	in := &countReader{r: io.LimitReader(zeros{}, 1<<30)}
	_, err := s.PutBlobFrom(t.Context(), in)
	if !errors.Is(err, objects.ErrObjectTooLarge) {
		t.Fatalf("PutBlobFrom of 1 GiB with an 8 MiB bound: %v; want ErrObjectTooLarge", err)
	}
	// The bound plus the chunks in flight, far from the input's size.
	if in.n > 32<<20 {
		t.Fatalf("read %d bytes before refusing; want about the 8 MiB bound", in.n)
	}
	assertNoTemp(t, s)
	if ids := listIDs(t, s); len(ids) != 0 {
		t.Fatalf("objects after a refused stream: %v", ids)
	}
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
