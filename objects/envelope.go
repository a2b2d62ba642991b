package objects

import (
	"bytes"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"sync"
)

// Envelope bounds (SPEC §1.2, §1.6).
const (
	// MaxHeaderBytes bounds the envelope header, LF excluded. The largest
	// canonical header is 66 bytes; anything past 256 is refused before it is
	// parsed.
	MaxHeaderBytes = 256
	// MaxSchema is the largest envelope schema: SPEC §1.2 requires
	// 1 <= schema < 2^53.
	MaxSchema = 1<<53 - 1
)

// Errors of the envelope constructors that are not format violations.
var (
	// ErrUnknownAlgo reports a hash profile other than sha256 and blake3.
	ErrUnknownAlgo = errors.New("unknown object hash profile")
)

// The canonical header prefixes. SPEC §1.2: the header is the v3 canonical
// form of {"encoding","schema","type"}, so its keys always appear in this
// order and the only variable parts are the schema digits and the type.
const (
	headerPrefixRaw  = `{"encoding":"raw","schema":`
	headerPrefixJSON = `{"encoding":"json","schema":`
	headerTypeKey    = `,"type":"`
	headerSuffix     = `"}`
)

// AppendHeader appends the canonical envelope header of an object of type t
// and the given schema to dst, without the LF that follows it (SPEC §1.2).
func AppendHeader(dst []byte, t Type, schema int64) []byte {
	if t == TypeBlob {
		dst = append(dst, headerPrefixRaw...)
	} else {
		dst = append(dst, headerPrefixJSON...)
	}
	dst = strconv.AppendInt(dst, schema, 10)
	dst = append(dst, headerTypeKey...)
	dst = append(dst, t...)
	return append(dst, headerSuffix...)
}

// DecodeEnvelope decodes stored envelope bytes and derives the object's id
// with hash profile a. It enforces every rule of SPEC §1.2: the framing, the
// header's canonical form, type, encoding and schema, and for json objects
// the shape scan, a strict parse and a canonical body. Errors are
// *FormatError values with the envelope.*, shape.*, text.* or canon.*
// reasons.
//
// The returned object's Body aliases stored; the caller must not modify
// stored afterwards.
func DecodeEnvelope(a Algo, stored []byte) (*Object, error) {
	return decodeEnvelope(a, stored, true)
}

// DecodeEnvelopeUnparsedAs is DecodeEnvelopeAs without the json body's
// parse: the framing, the header and the oid are checked (so the body is
// the one its writer hashed), the body's JSON rules are not, and the
// object's Value is left unparsed (Object.Parsed). It is for a reader that
// checks the body its own way, as SplitRunBody does, or parses it later
// (Object.WithValue).
func DecodeEnvelopeUnparsedAs(expected OID, stored []byte) (*Object, error) {
	if expected.IsZero() {
		return nil, fmt.Errorf("decode envelope: no expected oid")
	}
	o, err := decodeEnvelope(expected.Algo, stored, false)
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", expected, err)
	}
	if o.ID != expected {
		return nil, Errorf(ReasonEnvelopeOidMismatch, "object %s: stored bytes hash to %s", expected, o.ID)
	}
	return o, nil
}

// decodeEnvelope is DecodeEnvelope, parsing a json body only when parse.
func decodeEnvelope(a Algo, stored []byte, parse bool) (*Object, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("decode envelope: %w: %q", ErrUnknownAlgo, a)
	}
	// SPEC §1.2: split at the first LF. Only the first MaxHeaderBytes+1 bytes
	// can hold a legal split, so a large blob is never scanned in full.
	window := stored
	if len(window) > MaxHeaderBytes+1 {
		window = window[:MaxHeaderBytes+1]
	}
	lf := bytes.IndexByte(window, '\n')
	if lf < 0 {
		if len(stored) > MaxHeaderBytes {
			return nil, Errorf(ReasonEnvelopeMalformed, "envelope header exceeds %d bytes", MaxHeaderBytes)
		}
		return nil, Errorf(ReasonEnvelopeMalformed, "envelope has no LF after its header")
	}
	header, body := stored[:lf], stored[lf+1:]
	t, schema, ok := CanonicalHeader(header)
	if !ok {
		var err error
		if t, schema, err = decodeHeader(header); err != nil {
			return nil, err
		}
	}
	o := &Object{Type: t, Schema: schema, Body: body}
	if t != TypeBlob && !parse {
		o.unparsed = true
	} else if t != TypeBlob {
		v, err := decodeJSONBody(body)
		if err != nil {
			return nil, err
		}
		o.Value = v
	}
	o.ID = deriveID(a, t, schema, body)
	return o, nil
}

// hasherPools recycle hash states per profile: a blake3 hasher is ~10 KiB,
// and a decode runs on every object read.
var hasherPools = map[Algo]*sync.Pool{
	SHA256: {New: func() any { return SHA256.New() }},
	BLAKE3: {New: func() any { return BLAKE3.New() }},
}

// deriveID is Algo.Derive with a pooled hash state (SPEC §1.3 preimage:
// TYPE 0x00 decimal(schema) 0x00 body).
func deriveID(a Algo, t Type, schema int64, body []byte) OID {
	pool := hasherPools[a]
	if pool == nil {
		return a.Derive(t, schema, body)
	}
	h := pool.Get().(hash.Hash)
	h.Reset()
	var pre [64]byte
	b := append(pre[:0], t...)
	b = append(b, 0)
	b = strconv.AppendInt(b, schema, 10)
	b = append(b, 0)
	h.Write(b)
	h.Write(body)
	id := OIDFromHash(a, t, h)
	pool.Put(h)
	return id
}

// DecodeEnvelopeAs decodes stored bytes fetched under the name expected,
// using expected's hash profile, and refuses bytes whose derived oid differs
// with envelope.oid-mismatch (SPEC §1.3: the name a file is filed under is
// never trusted).
func DecodeEnvelopeAs(expected OID, stored []byte) (*Object, error) {
	if expected.IsZero() {
		return nil, fmt.Errorf("decode envelope: no expected oid")
	}
	o, err := DecodeEnvelope(expected.Algo, stored)
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", expected, err)
	}
	if o.ID != expected {
		return nil, Errorf(ReasonEnvelopeOidMismatch, "object %s: stored bytes hash to %s", expected, o.ID)
	}
	return o, nil
}

// CanonicalHeader recognises a header that is already canonical and valid,
// the case of every well-formed object, without a JSON parse, and returns
// its type and schema. It reports false for anything else, which
// decodeHeader then classifies; storage packs use it to find envelope
// boundaries in a block whose index is lost.
func CanonicalHeader(h []byte) (Type, int64, bool) {
	var raw bool
	switch {
	case bytes.HasPrefix(h, []byte(headerPrefixJSON)):
		h = h[len(headerPrefixJSON):]
	case bytes.HasPrefix(h, []byte(headerPrefixRaw)):
		h, raw = h[len(headerPrefixRaw):], true
	default:
		return "", 0, false
	}
	n := 0
	for n < len(h) && h[n] >= '0' && h[n] <= '9' {
		n++
	}
	// A canonical schema has no leading zero, and 2^53-1 has 16 digits.
	if n == 0 || n > 16 || h[0] == '0' {
		return "", 0, false
	}
	var schema int64
	for _, c := range h[:n] {
		schema = schema*10 + int64(c-'0')
	}
	if schema > MaxSchema {
		return "", 0, false
	}
	h = h[n:]
	// The length test keeps the type key and the closing suffix from
	// overlapping, as in `,"type":"}`.
	if len(h) < len(headerTypeKey)+len(headerSuffix) ||
		!bytes.HasPrefix(h, []byte(headerTypeKey)) || !bytes.HasSuffix(h, []byte(headerSuffix)) {
		return "", 0, false
	}
	h = h[len(headerTypeKey) : len(h)-len(headerSuffix)]
	var t Type
	switch string(h) {
	case "blob":
		t = TypeBlob
	case "event":
		t = TypeEvent
	case "run":
		t = TypeRun
	case "attestation":
		t = TypeAttestation
	case "annotation":
		t = TypeAnnotation
	default:
		return "", 0, false
	}
	if (t == TypeBlob) != raw {
		return "", 0, false
	}
	return t, schema, true
}

// bodyBufPool recycles the buffers the canonical-body comparison writes
// into, so a decode does not allocate a second copy of every body.
var bodyBufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooledBuf keeps one huge body from pinning its buffer in the pool.
const maxPooledBuf = 1 << 20

// decodeJSONBody applies SPEC §1.2's json body rules: the shape scan, a
// strict parse that demotes big integer literals (SPEC §0.2 demotion
// hazard), and byte identity with the value's v3 canonical form.
func decodeJSONBody(body []byte) (Value, error) {
	if err := ScanShape(body, MaxBodyTokens); err != nil {
		return Value{}, err
	}
	v, err := ParseJSON(body, ParseOptions{DemoteBigInts: true})
	if err != nil {
		return Value{}, bodyParseError(body, err)
	}
	bp := bodyBufPool.Get().(*[]byte)
	canon, err := AppendCanonV3((*bp)[:0], v)
	same := err == nil && bytes.Equal(canon, body)
	if cap(canon) <= maxPooledBuf {
		*bp = canon[:0]
		bodyBufPool.Put(bp)
	}
	if err != nil {
		return Value{}, fmt.Errorf("canonicalize body: %w", err)
	}
	if !same {
		return Value{}, Errorf(ReasonEnvelopeBodyNonCanonical, "json body is not in canonical form")
	}
	return v, nil
}

// bodyParseError maps a parse failure of a json body to its reason.
func bodyParseError(body []byte, err error) error {
	var pe *ParseError
	if !errors.As(err, &pe) {
		return Errorf(ReasonEnvelopeBodyMalformedJson, "json body: %v", err)
	}
	switch pe.Kind {
	case ParseDuplicateKey:
		// A duplicate key cannot survive a parse and re-encode unchanged, so
		// the body is not the canonical form of any value.
		return Errorf(ReasonEnvelopeBodyNonCanonical, "json body: %v", err)
	case ParseLoneSurrogate:
		// SPEC §0.1: raw CESU-8 bytes are text UTF-8 cannot encode; the
		// escape spelling is a lone surrogate. The codes are aliases.
		if hasRawSurrogate(body) {
			return Errorf(ReasonCanonUnencodableText, "json body: %v", err)
		}
		return Errorf(ReasonTextLoneSurrogate, "json body: %v", err)
	case ParseNonFinite:
		return Errorf(ReasonCanonNonFinite, "json body: %v", err)
	case ParseIntegerOverflow:
		return Errorf(ReasonCanonIntegerOverflow, "json body: %v", err)
	case ParseDepth:
		return Errorf(ReasonShapeDepthExceeded, "json body: %v", err)
	}
	return Errorf(ReasonEnvelopeBodyMalformedJson, "json body: %v", err)
}

// hasRawSurrogate reports whether b holds the three-byte spelling of a
// surrogate code point, ED A0..BF xx (WTF-8 or CESU-8).
func hasRawSurrogate[T string | []byte](b T) bool {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0xED && b[i+1] >= 0xA0 && b[i+1] <= 0xBF {
			return true
		}
	}
	return false
}

// decodeHeader classifies a header that is not a valid canonical header,
// following the order of SPEC §1.2: framing and JSON, key count, canonical
// bytes, then schema, type and encoding. It returns the type and schema of
// the rare header that is valid but was not recognised by CanonicalHeader.
func decodeHeader(h []byte) (Type, int64, error) {
	if len(h) > MaxHeaderBytes {
		return "", 0, Errorf(ReasonEnvelopeMalformed, "envelope header exceeds %d bytes", MaxHeaderBytes)
	}
	// SPEC §0.2: the header is not demoted, so a schema of 2^53 stays an
	// integer and fails as out of range.
	v, err := ParseJSON(h, ParseOptions{})
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) && pe.Kind == ParseDuplicateKey {
			return "", 0, Errorf(ReasonEnvelopeHeaderNonCanonical, "envelope header: %v", err)
		}
		return "", 0, Errorf(ReasonEnvelopeMalformed, "envelope header is not JSON: %v", err)
	}
	if v.Kind != KindObject {
		return "", 0, Errorf(ReasonEnvelopeHeaderNonCanonical, "envelope header is a JSON %s, not an object", v.Kind)
	}
	encoding, okE := v.Get("encoding")
	schemaV, okS := v.Get("schema")
	typeV, okT := v.Get("type")
	if len(v.Object) != 3 || !okE || !okS || !okT {
		return "", 0, Errorf(ReasonEnvelopeHeaderKeyCount,
			"envelope header must have exactly the keys encoding, schema and type")
	}
	canon, err := CanonV3(v)
	if err != nil {
		if schemaV.Kind == KindInt && HasReason(err, ReasonCanonIntegerOverflow) {
			return "", 0, Errorf(ReasonEnvelopeSchemaOutOfRange, "envelope schema is not below 2^53")
		}
		return "", 0, Errorf(ReasonEnvelopeHeaderNonCanonical, "envelope header: %v", err)
	}
	if !bytes.Equal(canon, h) {
		return "", 0, Errorf(ReasonEnvelopeHeaderNonCanonical, "envelope header %.80q is not canonical", h)
	}
	// SPEC §1.2: a bool (or any non-integer) is not a schema.
	if schemaV.Kind != KindInt {
		return "", 0, Errorf(ReasonEnvelopeSchemaNotInteger, "envelope schema is a JSON %s", schemaV.Kind)
	}
	if schemaV.Big != nil || schemaV.Int < 1 || schemaV.Int > MaxSchema {
		return "", 0, Errorf(ReasonEnvelopeSchemaOutOfRange, "envelope schema is outside 1..2^53-1")
	}
	t := Type(typeV.Str)
	if typeV.Kind != KindString || !t.Valid() {
		return "", 0, Errorf(ReasonEnvelopeUnknownType, "unknown object type %.40q", typeV.Str)
	}
	want := "json"
	if t == TypeBlob {
		want = "raw"
	}
	if encoding.Kind != KindString || encoding.Str != want {
		return "", 0, Errorf(ReasonEnvelopeEncodingMismatch, "a %s object must have encoding %q", t, want)
	}
	return t, schemaV.Int, nil
}
