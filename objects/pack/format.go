package pack

import (
	"encoding/binary"
	"errors"
	"hash/crc32"

	"github.com/tinehq/tine/objects"
)

const (
	// Dir is the directory under objects/ holding storage packs.
	Dir = "pack"
	// Version is the version of the pack and index formats.
	Version = 1
	// DefaultBlockSize is the uncompressed size a pack block is
	// filled to before it is compressed (see the measurements above).
	DefaultBlockSize = 8 << 10
	// LargeObject is the envelope size above which an object is
	// streamed into a block of its own.
	LargeObject = 1 << 20
	// MaxObjects bounds the entries of one pack, so an index is
	// at most about 1 GiB and its count can be trusted before any
	// allocation.
	MaxObjects = 1 << 24
)

// Errors of storage packs, wrapped with the object or file concerned.
var (
	// ErrCorrupt reports a storage pack or index that fails its
	// checksums or structure. An object read from a damaged block also
	// carries a *FormatError envelope.oid-mismatch naming it.
	ErrCorrupt = errors.New("storage pack is corrupt")
	// ErrAlgo reports a storage pack written for another hash profile.
	ErrAlgo = errors.New("storage pack uses another hash profile")
	// ErrNoIndex reports a storage pack file without its index: an
	// interrupted write, or an index that was lost; its objects cannot be
	// found until `tine index-pack` rebuilds the index.
	ErrNoIndex = errors.New("storage pack has no index")
	// ErrAmbiguous reports a pack block whose envelope boundaries
	// cannot be recovered without its index (a blob holding what reads as
	// another envelope's header).
	ErrAmbiguous = errors.New("storage pack block has ambiguous envelope boundaries")
	// ErrPacksChanging reports storage packs that other processes kept
	// merging away while a store listed them; listing again later works.
	ErrPacksChanging = errors.New("storage packs kept changing while listed")
)

// Layout constants of the two files.
const (
	spPackMagic     = "TINESPK\x00"
	spIndexMagic    = "TINESIX\x00"
	spPackHeader    = 16
	spIndexHeader   = 20
	spFanout        = 256 * 4
	spKeySize       = 33
	spEntrySize     = spKeySize + 8 + 4*4 // key, offset, size, start, length, crc
	spSumSize       = 32                  // SHA-256
	spBlockHeader   = 5                   // kind, raw length
	spKindStored    = 0
	spKindZstd      = 1
	spIndexOverhead = spIndexHeader + spFanout + 2*spSumSize
	// spMaxRaw bounds a block's decoded size: one envelope as large as a
	// loose object may be, header included.
	spMaxRaw = objects.MaxLooseObjectSize + objects.MaxHeaderBytes + 1
)

// crc32c is the Castagnoli table used for block checksums.
var crc32c = crc32.MakeTable(crc32.Castagnoli)

// spAlgoCode returns the header code of a hash profile.
func spAlgoCode(a objects.Algo) byte {
	switch a {
	case objects.SHA256:
		return 1
	case objects.BLAKE3:
		return 2
	}
	return 0
}

// spAlgoOf returns the hash profile of a header code.
func spAlgoOf(c byte) (objects.Algo, bool) {
	switch c {
	case 1:
		return objects.SHA256, true
	case 2:
		return objects.BLAKE3, true
	}
	return "", false
}

// spTypeCode returns the key code of an object type; codes sort like the
// type names, so (code, digest) order is enumeration order.
func spTypeCode(t objects.Type) byte {
	switch t {
	case objects.TypeAnnotation:
		return 1
	case objects.TypeAttestation:
		return 2
	case objects.TypeBlob:
		return 3
	case objects.TypeEvent:
		return 4
	case objects.TypeRun:
		return 5
	}
	return 0
}

// spTypeOf returns the object type of a key code.
func spTypeOf(c byte) (objects.Type, bool) {
	if c < 1 || c > 5 {
		return "", false
	}
	return objects.Types[c-1], true
}

// spKey is an index key: digest then type code.
type spKey [spKeySize]byte

// spKeyOf returns the index key of id.
func spKeyOf(id objects.OID) spKey {
	var k spKey
	copy(k[:32], id.Digest[:])
	k[32] = spTypeCode(id.Type)
	return k
}

// appendSPHeader appends a pack or index header (without the count).
func appendSPHeader(dst []byte, magic string, a objects.Algo) []byte {
	dst = append(dst, magic...)
	dst = binary.BigEndian.AppendUint32(dst, Version)
	return append(dst, spAlgoCode(a), 0, 0, 0)
}

// checkSPHeader validates a pack or index header against the store's
// profile a.
func checkSPHeader(h []byte, magic string, a objects.Algo) error {
	if len(h) < 16 || string(h[:8]) != magic {
		return errors.New("bad magic")
	}
	if v := binary.BigEndian.Uint32(h[8:12]); v != Version {
		return errors.New("unsupported version")
	}
	got, ok := spAlgoOf(h[12])
	if !ok || h[13] != 0 || h[14] != 0 || h[15] != 0 {
		return errors.New("bad hash profile field")
	}
	if got != a {
		return ErrAlgo
	}
	return nil
}
