package pack

import (
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Encoders and decoders are expensive to build (hundreds of KiB of tables),
// so storage packs keep a few of each and reuse them; each is used by one
// goroutine at a time and is single-threaded (ARCHITECTURE §7: first-touch
// page faults make per-object allocation costly).

// spCodecs holds the idle encoders and decoders.
var spCodecs = struct {
	enc chan *zstd.Encoder
	dec chan *zstd.Decoder
}{
	enc: make(chan *zstd.Encoder, 2*runtime.GOMAXPROCS(0)),
	dec: make(chan *zstd.Decoder, 2*runtime.GOMAXPROCS(0)),
}

// getEncoder returns an idle encoder or a new one.
func getEncoder() (*zstd.Encoder, error) {
	select {
	case e := <-spCodecs.enc:
		return e, nil
	default:
	}
	return zstd.NewWriter(nil,
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderCRC(false), // blocks carry a CRC-32C in the index
		zstd.WithLowerEncoderMem(true))
}

// putEncoder returns an encoder to the idle set, closing it if full.
func putEncoder(e *zstd.Encoder) {
	select {
	case spCodecs.enc <- e:
	default:
		e.Close()
	}
}

// getDecoder returns an idle decoder or a new one. Decoders refuse frames
// that decode beyond spMaxRaw, so a hostile frame cannot exhaust memory.
func getDecoder() (*zstd.Decoder, error) {
	select {
	case d := <-spCodecs.dec:
		return d, nil
	default:
	}
	return zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(spMaxRaw),
		zstd.WithDecodeAllCapLimit(true))
}

// zstdMaxDecoded bounds what n bytes of zstd frames can decode to: a block
// that yields bytes takes at least 4 (a 3-byte header and the byte an RLE
// block repeats) and yields at most 128 KiB (RFC 8878 §3.1.1.2.4,
// Block_Maximum_Size); frame headers only add bytes. A block header
// claiming more than its payload's bound is damage, refused before a
// buffer of the claimed size is allocated.
func zstdMaxDecoded(n int) uint64 { return (uint64(n)/4 + 1) << 17 }

// putDecoder returns a decoder to the idle set, closing it if full.
func putDecoder(d *zstd.Decoder) {
	select {
	case spCodecs.dec <- d:
	default:
		d.Close()
	}
}

// spBufPool recycles the compressed-block buffers of writers and readers.
var spBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 2*DefaultBlockSize); return &b }}

// maxPooledBlockBuf keeps buffers grown by a large block out of the pool.
const maxPooledBlockBuf = 1 << 20

// getBlockBuf returns an empty pooled buffer.
func getBlockBuf() *[]byte {
	b := spBufPool.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// putBlockBuf recycles b unless it grew too large.
func putBlockBuf(b *[]byte) {
	if cap(*b) <= maxPooledBlockBuf {
		spBufPool.Put(b)
	}
}
