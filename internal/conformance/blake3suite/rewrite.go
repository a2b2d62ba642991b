package blake3suite

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"

	"github.com/zeebo/blake3"
)

// preimage is what an object id hashes: TYPE 0x00 decimal(schema) 0x00 body.
type preimage struct {
	typ    string
	schema string
	body   []byte
}

// hashPreimage hashes a preimage with either profile's function directly,
// without tine's object code, so the generator is a second derivation of
// every oid the runner later checks tine against.
func hashPreimage(algo, typ, schema string, body []byte) string {
	msg := make([]byte, 0, len(typ)+len(schema)+2+len(body))
	msg = append(msg, typ...)
	msg = append(msg, 0)
	msg = append(msg, schema...)
	msg = append(msg, 0)
	msg = append(msg, body...)
	var sum [32]byte
	if algo == "blake3" {
		sum = blake3.Sum256(msg)
	} else {
		sum = sha256.Sum256(msg)
	}
	return typ + ":" + algo + ":" + hex.EncodeToString(sum[:])
}

var (
	// oidPattern is a sha256 oid as the suite spells it. A longer run of
	// hex after it is left alone: the prefix is rewritten the same way
	// everywhere, so a malformed oid stays exactly as malformed.
	oidPattern = regexp.MustCompile(`(blob|event|run|attestation|annotation):sha256:[0-9a-f]{64}`)
	// hexRun finds bare digests (an annotation ref's name, oid.parse's
	// digest) to map when they are a known object's.
	hexRun = regexp.MustCompile(`[0-9a-f]{64,}`)
	// splitDigest is a digest as an object path spells it (SPEC §2.1).
	splitDigest = regexp.MustCompile(`[0-9a-f]{2}/[0-9a-f]{62}`)
	// packIDPattern is a TINEPACK3 pack id, SHA-256 in both profiles.
	packIDPattern = regexp.MustCompile(`sha256:[0-9a-f]{64}`)
	// configHash is a repository descriptor's object_hash member.
	configHash = regexp.MustCompile(`("object_hash"\s*:\s*")sha256(")`)
	// dataField is a pack manifest entry's base64 envelope.
	dataField = regexp.MustCompile(`"data":"([^"]*)"`)
)

// rewriter maps the sha256 suite's names to the blake3 profile's.
type rewriter struct {
	known   map[string]preimage // sha256 oid → its preimage
	digests map[string]string   // sha256 digest of a known object → its oid
	mapped  map[string]string   // sha256 oid → blake3 oid
	busy    map[string]bool
	packs   map[string]string // old manifest digest → new (hex)
	err     error
}

func newRewriter() *rewriter {
	return &rewriter{known: map[string]preimage{}, digests: map[string]string{},
		mapped: map[string]string{}, busy: map[string]bool{}, packs: map[string]string{}}
}

func (r *rewriter) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

// register records an object the suite spells out.
func (r *rewriter) register(typ, schema string, body []byte) {
	oid := hashPreimage("sha256", typ, schema, body)
	if _, ok := r.known[oid]; ok {
		return
	}
	r.known[oid] = preimage{typ: typ, schema: schema, body: append([]byte(nil), body...)}
	r.digests[oid[len(oid)-64:]] = oid
}

// registerEnvelope records stored bytes that are a well-formed envelope:
// the canonical header, LF, body. Anything else names no object.
func (r *rewriter) registerEnvelope(b []byte) {
	if typ, schema, body, ok := splitEnvelope(b); ok {
		r.register(typ, schema, body)
	}
}

// splitEnvelope parses an envelope without tine's decoder: the header must
// be byte-identical to one of the canonical headers SPEC §1.2 allows.
func splitEnvelope(b []byte) (typ, schema string, body []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return "", "", nil, false
	}
	m := envelopeHeader.FindSubmatch(b[:i])
	if m == nil {
		return "", "", nil, false
	}
	enc, schema, typ := string(m[1]), string(m[2]), string(m[3])
	if (enc == "raw") != (typ == "blob") {
		return "", "", nil, false
	}
	if n, err := strconv.ParseInt(schema, 10, 64); err != nil || n < 1 || n >= 1<<53 {
		return "", "", nil, false
	}
	return typ, schema, b[i+1:], true
}

var envelopeHeader = regexp.MustCompile(`^\{"encoding":"(raw|json)","schema":([1-9][0-9]*),"type":"(blob|event|run|attestation|annotation)"\}$`)

// oid returns the blake3 name of a sha256 oid: BLAKE3 of the rewritten
// preimage when the suite shows the object, the same digest under the
// blake3 name when it does not.
func (r *rewriter) oid(old string) string {
	if n, ok := r.mapped[old]; ok {
		return n
	}
	p, ok := r.known[old]
	if !ok {
		return old[:len(old)-64-len("sha256:")] + "blake3:" + old[len(old)-64:]
	}
	if r.busy[old] {
		r.fail("object %s links to itself", old)
		return old
	}
	r.busy[old] = true
	n := hashPreimage("blake3", p.typ, p.schema, r.text(p.body))
	delete(r.busy, old)
	r.mapped[old] = n
	return n
}

// text rewrites the names inside bytes: oids, bare digests of known
// objects, pack ids of rewritten manifests and a descriptor's object_hash.
// Every replacement has the length of what it replaces.
func (r *rewriter) text(b []byte) []byte {
	out := oidPattern.ReplaceAllFunc(b, func(m []byte) []byte { return []byte(r.oid(string(m))) })
	out = configHash.ReplaceAll(out, []byte("${1}blake3${2}"))
	out = packIDPattern.ReplaceAllFunc(out, func(m []byte) []byte {
		if n, ok := r.packs[string(m[len("sha256:"):])]; ok {
			return []byte("sha256:" + n)
		}
		return m
	})
	locs := hexRun.FindAllIndex(out, -1)
	for _, l := range locs {
		if l[1]-l[0] != 64 || (l[0] > 0 && out[l[0]-1] == ':') {
			continue
		}
		if old, ok := r.digests[string(out[l[0]:l[1]])]; ok {
			n := r.oid(old)
			copy(out[l[0]:l[1]], n[len(n)-64:])
		}
	}
	for _, l := range splitDigest.FindAllIndex(out, -1) {
		if l[0] > 0 && isHex(out[l[0]-1]) || l[1] < len(out) && isHex(out[l[1]]) {
			continue
		}
		d := string(out[l[0]:l[0]+2]) + string(out[l[0]+3:l[1]])
		if old, ok := r.digests[d]; ok {
			n := r.oid(old)
			n = n[len(n)-64:]
			copy(out[l[0]:l[1]], n[:2]+"/"+n[2:])
		}
	}
	return out
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// bytes rewrites stored bytes: a TINEPACK3 frame is rewritten inside its
// compression; anything else is rewritten as text, with the base64
// envelopes of a pack manifest's entries rewritten in place.
func (r *rewriter) bytes(b []byte) []byte {
	if isFrame(b) {
		return r.frame(b)
	}
	out := r.text(b)
	out = dataField.ReplaceAllFunc(out, func(m []byte) []byte {
		inner := m[len(`"data":"`) : len(m)-1]
		return []byte(`"data":"` + r.base64(string(inner)) + `"`)
	})
	if isManifest(b) && !bytes.Equal(out, b) {
		oldSum, newSum := sha256.Sum256(b), sha256.Sum256(out)
		r.packs[hex.EncodeToString(oldSum[:])] = hex.EncodeToString(newSum[:])
	}
	return out
}

func isManifest(b []byte) bool { return bytes.HasPrefix(b, []byte(`{"objects":`)) }

// base64 rewrites the bytes a base64 string carries. Characters outside
// the alphabet (the whitespace of a vector about lenient decoders) are
// kept at their positions, so the string stays exactly as malformed; a
// string that does not decode is only rewritten as text.
func (r *rewriter) base64(s string) string {
	var clean []byte
	var keep []int
	for i := 0; i < len(s); i++ {
		if c := s[i]; isBase64Char(c) {
			clean = append(clean, c)
		} else {
			keep = append(keep, i)
		}
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(string(clean))
	if err != nil {
		return string(r.text([]byte(s)))
	}
	enc := base64.StdEncoding.EncodeToString(r.bytes(raw))
	if len(enc) != len(clean) {
		r.fail("base64 string changed length when rewritten")
		return s
	}
	out := make([]byte, 0, len(s))
	j := 0
	for i := 0; i < len(s); i++ {
		if len(keep) > 0 && keep[0] == i {
			out = append(out, s[i])
			keep = keep[1:]
			continue
		}
		out = append(out, enc[j])
		j++
	}
	return string(out)
}

// lenientBase64 decodes s with every character outside the alphabet
// dropped: discovery wants the envelope even where the vector broke the
// encoding on purpose.
func lenientBase64(s string) ([]byte, bool) {
	clean := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if isBase64Char(s[i]) {
			clean = append(clean, s[i])
		}
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(string(clean))
	return raw, err == nil
}

func isBase64Char(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}
