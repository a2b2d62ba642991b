package objects

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// InspectPack verifies a TINEPACK3 frame (SPEC §2.8, op pack.inspect) and
// returns its id, objects and shallow boundary. The objects are decoded with
// hash profile a, which must be the profile of the manifest's ids; the pack
// id itself is always SHA-256. The checks run in the SPEC's order, each
// failure a *FormatError with a pack.* reason:
//
//  1. the frame length (pack.oversized), then the magic and minimum length
//     (pack.bad-magic);
//  2. a bounded inflate of the zlib stream (pack.invalid-compression; a
//     truncated stream or any byte after its end: pack.truncated-or-trailing;
//     more than MaxPackBodyBytes inflated: pack.oversized);
//  3. the SHA-256 of the inflated body against bytes 10..42
//     (pack.checksum-mismatch);
//  4. the manifest's shape, parse and canonical form, then its key set,
//     version, arrays, counts, entries and boundary (see parsePackManifest
//     and decodePackManifest).
//
// InspectPack does not check that the boundary equals the objects' external
// links, nor that links resolve: only InstallPack does (SPEC §2.8).
func InspectPack(frame []byte, a Algo) (*PackFrame, error) {
	return inspectPack(frame, a, MaxPackBodyBytes, DefaultPackLimits)
}

// InspectPackLimits is InspectPack with the manifest counts of lim in
// place of DefaultPackLimits (a count that is not positive keeps the
// default).
func InspectPackLimits(frame []byte, a Algo, lim PackLimits) (*PackFrame, error) {
	return inspectPack(frame, a, MaxPackBodyBytes, lim.orDefault())
}

// inspectPack is InspectPack with the inflate bound and the counts as
// parameters, so the fuzz test can use a small bound.
func inspectPack(frame []byte, a Algo, maxBody int, lim PackLimits) (*PackFrame, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("inspect pack: %w: %q", ErrUnknownAlgo, a)
	}
	// SPEC §1.6: the size bound comes before anything else, magic included.
	if len(frame) > MaxPackBytes {
		return nil, Errorf(ReasonPackOversized, "pack frame of %d bytes exceeds %d", len(frame), MaxPackBytes)
	}
	if len(frame) < PackHeaderSize || string(frame[:len(PackMagic)]) != PackMagic {
		return nil, Errorf(ReasonPackBadMagic, "not a TINEPACK3 frame")
	}
	digest := frame[len(PackMagic):PackHeaderSize]
	body, err := inflatePack(frame[PackHeaderSize:], maxBody)
	if err != nil {
		return nil, err
	}
	// SPEC §2.8: the digest covers the inflated body and is checked, never
	// recomputed.
	sum := sha256.Sum256(body)
	if !bytes.Equal(sum[:], digest) {
		return nil, Errorf(ReasonPackChecksumMismatch,
			"pack header names sha256:%x, the manifest hashes to sha256:%x", digest, sum)
	}
	id := PackIDPrefix + hex.EncodeToString(digest)
	m, err := parsePackManifest(body, lim.tokens())
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", id, err)
	}
	pf, err := decodePackManifest(m, a, lim)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", id, err)
	}
	pf.ID = id
	return pf, nil
}

// inflateInline is how much of a manifest inflatePack inflates into a
// first buffer; a larger one is inflated twice (see inflatePack).
const inflateInline = 256 << 10

// inflatePack inflates a zlib stream that must end exactly at the end of
// stream, producing at most maxBody bytes. Memory follows what a valid
// stream inflates to, never what a hostile one claims: a body that fits
// inflateInline is read in one pass; a larger one is first inflated and
// counted without being kept (a zlib bomb is refused as soon as it passes
// maxBody, having held 32 KiB), then inflated again into a buffer of
// exactly its size. Growing one buffer by doubling instead would hold up
// to three times the bound at once.
func inflatePack(stream []byte, maxBody int) ([]byte, error) {
	first := make([]byte, min(maxBody, inflateInline))
	n, err := inflateScan(stream, first, maxBody)
	if err != nil {
		return nil, err
	}
	if n <= len(first) {
		return first[:n], nil
	}
	first = nil
	body := make([]byte, n)
	if m, err := inflateScan(stream, body, n); err != nil || m != n {
		// The stream inflated to n bytes a moment ago; it is our own
		// immutable slice, so this is unreachable short of a fault.
		return nil, Errorf(ReasonPackInvalidCompression, "zlib stream inflated to %d bytes, then %d: %v", n, m, err)
	}
	return body, nil
}

// inflateScan inflates the zlib stream, keeping its first len(dst) bytes
// in dst and counting the rest without keeping them, and returns the
// inflated size. It stops with pack.oversized as soon as more than limit
// bytes came out. The bytes.Reader is also a ByteReader, so the
// decompressor reads exactly the stream (adler-32 trailer included) and
// whatever is left in it afterwards is trailing data.
func inflateScan(stream, dst []byte, limit int) (int, error) {
	src := bytes.NewReader(stream)
	zr, err := zlib.NewReader(src)
	if err != nil {
		return 0, inflateError(err)
	}
	defer zr.Close()
	var scratch [32 << 10]byte
	n := 0
	for {
		buf := scratch[:]
		if n < len(dst) {
			buf = dst[n:]
		}
		if rem := limit + 1 - n; len(buf) > rem {
			buf = buf[:rem] // never inflate more than one byte past the limit
		}
		k, err := zr.Read(buf)
		n += k
		if n > limit {
			return n, Errorf(ReasonPackOversized, "pack manifest inflates past %d bytes", limit)
		}
		if err == io.EOF {
			break // the decompressor verified the adler-32 trailer
		}
		if err != nil {
			return n, inflateError(err)
		}
	}
	if src.Len() != 0 {
		return n, Errorf(ReasonPackTruncatedOrTrailing, "%d bytes follow the zlib stream", src.Len())
	}
	return n, nil
}

// inflateError maps a decompressor failure to its reason: running out of
// input is truncation, anything else is a bad stream.
func inflateError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return Errorf(ReasonPackTruncatedOrTrailing, "zlib stream is truncated: %v", err)
	}
	var corrupt flate.CorruptInputError
	switch {
	case errors.As(err, &corrupt), errors.Is(err, zlib.ErrHeader),
		errors.Is(err, zlib.ErrChecksum), errors.Is(err, zlib.ErrDictionary):
		return Errorf(ReasonPackInvalidCompression, "zlib stream: %v", err)
	}
	return Errorf(ReasonPackInvalidCompression, "zlib stream cannot be inflated: %v", err)
}

// parsePackManifest applies SPEC §2.8 step 4: the shape scan and a strict
// parse (pack.manifest-malformed; the body must be a JSON object), then
// byte identity with the v3 canonical form (pack.manifest-non-canonical).
func parsePackManifest(body []byte, tokens int) (Value, error) {
	if err := ScanShape(body, tokens); err != nil {
		return Value{}, fmt.Errorf("%w: %w", Errorf(ReasonPackManifestMalformed, "pack manifest"), err)
	}
	v, err := ParseJSON(body, ParseOptions{})
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) && pe.Kind == ParseDuplicateKey {
			// A repeated key survives no parse and re-encode unchanged, so
			// the body is not the canonical form of any manifest.
			return Value{}, Errorf(ReasonPackManifestNonCanonical, "pack manifest: %v", err)
		}
		return Value{}, Errorf(ReasonPackManifestMalformed, "pack manifest: %v", err)
	}
	if v.Kind != KindObject {
		return Value{}, Errorf(ReasonPackManifestMalformed, "pack manifest is a JSON %s, not an object", v.Kind)
	}
	canon, err := CanonV3(v)
	if err != nil {
		return Value{}, Errorf(ReasonPackManifestNonCanonical, "pack manifest: %v", err)
	}
	if !bytes.Equal(canon, body) {
		return Value{}, Errorf(ReasonPackManifestNonCanonical, "pack manifest is not in canonical form")
	}
	return v, nil
}
