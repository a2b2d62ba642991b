package objects

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
	"strings"

	"github.com/zeebo/blake3"
)

// Type is one of the five object types. There is no extension point
// (SPEC §1.1).
type Type string

// The object types.
const (
	TypeBlob        Type = "blob"
	TypeEvent       Type = "event"
	TypeRun         Type = "run"
	TypeAttestation Type = "attestation"
	TypeAnnotation  Type = "annotation"
)

// Types lists the object types in the order fsck and enumeration use.
var Types = []Type{TypeAnnotation, TypeAttestation, TypeBlob, TypeEvent, TypeRun}

// Valid reports whether t is one of the five object types.
func (t Type) Valid() bool {
	switch t {
	case TypeBlob, TypeEvent, TypeRun, TypeAttestation, TypeAnnotation:
		return true
	}
	return false
}

// WithArticle spells t with its indefinite article for messages: "a
// blob", "an event".
func (t Type) WithArticle() string {
	if t != "" && strings.ContainsRune("aeiou", rune(t[0])) {
		return "an " + string(t)
	}
	return "a " + string(t)
}

// canonType returns the constant equal to a valid type.
func canonType(t Type) Type {
	for _, c := range [...]Type{TypeEvent, TypeBlob, TypeRun, TypeAttestation, TypeAnnotation} {
		if t == c {
			return c
		}
	}
	return t
}

// Algo is a repository's object hash: the "object format" chosen at init.
type Algo string

// The hash profiles. SHA256 is OpenTine's; BLAKE3 is tine's default. Both
// hash the same preimage: TYPE 0x00 decimal(schema) 0x00 body.
const (
	SHA256 Algo = "sha256"
	BLAKE3 Algo = "blake3"
)

// Valid reports whether a is a known hash profile.
func (a Algo) Valid() bool { return a == SHA256 || a == BLAKE3 }

// New returns a hash of the profile's algorithm with nothing written to it.
func (a Algo) New() hash.Hash {
	if a == BLAKE3 {
		return blake3.New()
	}
	return sha256.New()
}

// Hasher returns a hash already fed the preimage prefix of an object of the
// given type and schema, so a caller can stream the body into it and finish
// with OIDFromHash. It is how large blobs are hashed in constant memory.
func (a Algo) Hasher(t Type, schema int64) hash.Hash {
	h := a.New()
	var pre [64]byte
	b := append(pre[:0], t...)
	b = append(b, 0)
	b = strconv.AppendInt(b, schema, 10)
	b = append(b, 0)
	h.Write(b)
	return h
}

// Derive returns the oid of an object of type t and the given schema whose
// stored body is body (SPEC §1.3: the header and its LF are not hashed).
func (a Algo) Derive(t Type, schema int64, body []byte) OID {
	h := a.Hasher(t, schema)
	h.Write(body)
	return OIDFromHash(a, t, h)
}

// OIDFromHash finishes a Hasher into an oid.
func OIDFromHash(a Algo, t Type, h hash.Hash) OID {
	id := OID{Type: t, Algo: a}
	h.Sum(id.Digest[:0])
	return id
}

// OID names an object: TYPE:ALGO:<64 lowercase hex>.
type OID struct {
	Type   Type
	Algo   Algo
	Digest [32]byte
}

// String returns the oid's canonical spelling, or "" for the zero OID.
func (o OID) String() string {
	if o.IsZero() {
		return ""
	}
	var buf [len("attestation:blake3:") + 64]byte
	b := append(buf[:0], o.Type...)
	b = append(b, ':')
	b = append(b, o.Algo...)
	b = append(b, ':')
	b = hex.AppendEncode(b, o.Digest[:])
	return string(b)
}

// AppendString appends the oid's canonical spelling to dst.
func (o OID) AppendString(dst []byte) []byte {
	if o.IsZero() {
		return dst
	}
	dst = append(dst, o.Type...)
	dst = append(dst, ':')
	dst = append(dst, o.Algo...)
	dst = append(dst, ':')
	return hex.AppendEncode(dst, o.Digest[:])
}

// Hex returns the 64 lowercase hex digits of the digest.
func (o OID) Hex() string { return hex.EncodeToString(o.Digest[:]) }

// IsZero reports whether o is the zero OID, which names nothing.
func (o OID) IsZero() bool { return o.Type == "" }

// ParseOID parses TYPE:ALGO:<64 lowercase hex> for either hash profile.
// Anything else, uppercase hex included, is oid.malformed (SPEC §1.3).
func ParseOID(s string) (OID, error) {
	t, rest, ok := strings.Cut(s, ":")
	if !ok || !Type(t).Valid() {
		return OID{}, Errorf(ReasonOidMalformed, "not an oid: %.80q", s)
	}
	a, digest, ok := strings.Cut(rest, ":")
	if !ok || !Algo(a).Valid() || len(digest) != 64 {
		return OID{}, Errorf(ReasonOidMalformed, "not an oid: %.80q", s)
	}
	// The constants, not slices of s: an id kept from a parsed body must not
	// keep the whole body alive (a run's event list is megabytes).
	id := OID{Type: canonType(Type(t)), Algo: SHA256}
	if Algo(a) == BLAKE3 {
		id.Algo = BLAKE3
	}
	// Decoded in place, lowercase only, by table: this runs for every oid
	// of every run object read, so it neither allocates nor makes a
	// second pass, and one bad digit anywhere shows in the OR of all.
	var bad byte
	for i := 0; i < 64; i += 2 {
		hi, lo := hexDigitValue[digest[i]], hexDigitValue[digest[i+1]]
		bad |= hi | lo
		id.Digest[i/2] = hi<<4 | lo&0x0f
	}
	if bad&0xf0 != 0 {
		return OID{}, Errorf(ReasonOidMalformed, "not an oid: %.80q", s)
	}
	return id, nil
}

// hexDigitValue maps a lowercase hex digit to its value and every other byte
// to 0xff.
var hexDigitValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
	}
	return t
}()

// ParseOIDFor parses an oid and requires it to use the hash profile a, so a
// sha256 repository never accepts a blake3 name and vice versa.
func ParseOIDFor(a Algo, s string) (OID, error) {
	id, err := ParseOID(s)
	if err != nil {
		return OID{}, err
	}
	if id.Algo != a {
		return OID{}, Errorf(ReasonOidMalformed, "oid %.80q uses %s, this repository uses %s", s, id.Algo, a)
	}
	return id, nil
}

// Compare orders oids by their spelling, the order enumeration and pack
// writers use.
func (o OID) Compare(p OID) int {
	// Field by field, without building either string: no type name is a
	// prefix of another, nor is one algo name of the other, and lowercase
	// hex sorts like the bytes it spells, so this is the order of String.
	if c := strings.Compare(string(o.Type), string(p.Type)); c != 0 {
		return c
	}
	if c := strings.Compare(string(o.Algo), string(p.Algo)); c != 0 {
		return c
	}
	return bytes.Compare(o.Digest[:], p.Digest[:])
}
