package objects

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The .tine format versions (SPEC §3.1).
const (
	// ArtifactFormatVersion is the current .tine format_version.
	ArtifactFormatVersion = 2
	// ArtifactMinFormatVersion is the oldest readable format_version; a v1
	// document is migrated to v2 in memory on load.
	ArtifactMinFormatVersion = 1
)

// IntegrityAlgorithm is the only integrity algorithm of a .tine artifact.
const IntegrityAlgorithm = "sha256"

// The integrity verdict reasons of SPEC §3.5, spelled exactly as the
// reference reports them (vector file 35).
const (
	IntegrityReasonOK                   = "ok"
	IntegrityReasonMismatch             = "digest mismatch"
	IntegrityReasonMalformedDigest      = "malformed digest"
	IntegrityReasonMissing              = "missing integrity digest"
	IntegrityReasonUnsupportedAlgorithm = "unsupported algorithm"
	IntegrityReasonRootNotObject        = "artifact root is not an object"
)

// ErrArtifactNotObject reports a .tine document whose top level is not a
// JSON object; it has no integrity digest and no run.
var ErrArtifactNotObject = errors.New(".tine artifact root is not an object")

// IntegrityResult is the verdict of VerifyIntegrity: the op integrity.verify
// output {ok, algorithm, expected, actual, reason} (see MarshalJSON). A nil
// pointer and the zero (null) Expected stand for JSON null.
type IntegrityResult struct {
	// OK is true only when the stored digest equals the computed one.
	OK bool `json:"ok"`
	// Algorithm is the stored algorithm (as Python str() renders it), nil
	// when none was read.
	Algorithm *string `json:"algorithm"`
	// Expected is the stored digest value, whatever its JSON type.
	Expected Value `json:"-"`
	// Actual is the computed digest, nil when it was not computed.
	Actual *string `json:"actual"`
	// Reason is one of the IntegrityReason* strings or a format_version
	// message.
	Reason string `json:"reason"`
	// Draft reports an autosave checkpoint (top-level "draft" truthy).
	Draft bool `json:"-"`
}

// IntegrityDigest returns the integrity digest of a parsed .tine document
// (SPEC §3.5): lowercase hex SHA-256 of the v2 canonical JSON of the
// document without its top-level "metadata" member. It is computed over the
// parsed value, never the file bytes, so line endings and indentation do not
// matter; metadata (integrity and signature included) is excluded wholesale.
// The digest is consistency, not authenticity.
func IntegrityDigest(doc Value) (string, error) {
	if doc.Kind != KindObject {
		return "", ErrArtifactNotObject
	}
	body := make([]Member, 0, len(doc.Object))
	for _, m := range doc.Object {
		if m.Key != "metadata" {
			body = append(body, m)
		}
	}
	b, err := CanonV2(ObjectValue(body...))
	if err != nil {
		return "", fmt.Errorf(".tine integrity digest: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// VerifyIntegrity checks the integrity block of a parsed .tine document
// (SPEC §3.5) and always returns a verdict, never an error. In order: the
// root must be an object; format_version must be the integer 1 or 2 (a
// newer integer reads "unsupported .tine format_version=N; written by a
// newer opentine", anything else "unsupported .tine format_version=<repr>;
// supported (1, 2)"); metadata.integrity must be an object ("missing
// integrity digest"); its algorithm must be "sha256" ("unsupported
// algorithm"); its digest a 64-character hexadecimal string ("malformed
// digest"); and it must equal IntegrityDigest ("digest mismatch", else
// "ok"). The version is checked on the document as read, before any v1
// migration, since the digest covers format_version.
func VerifyIntegrity(doc Value) IntegrityResult {
	if doc.Kind != KindObject {
		return IntegrityResult{Reason: IntegrityReasonRootNotObject}
	}
	if msg, ok := checkFormatVersion(doc); !ok {
		return IntegrityResult{Reason: msg}
	}
	integrity, ok := artifactIntegrityBlock(doc)
	if !ok {
		return IntegrityResult{Reason: IntegrityReasonMissing}
	}
	algo, _ := integrity.Get("algorithm")
	expected, _ := integrity.Get("digest")
	if algo.Kind != KindString || algo.Str != IntegrityAlgorithm {
		name := pyStr(algo)
		return IntegrityResult{Algorithm: &name, Expected: expected, Reason: IntegrityReasonUnsupportedAlgorithm}
	}
	sha := IntegrityAlgorithm
	if expected.Kind != KindString || !pyHexDigest(expected.Str) {
		return IntegrityResult{Algorithm: &sha, Expected: expected, Reason: IntegrityReasonMalformedDigest}
	}
	res := IntegrityResult{Algorithm: &sha, Expected: expected, Draft: isDraft(doc)}
	actual, err := IntegrityDigest(doc)
	if err != nil {
		res.Reason = IntegrityReasonMismatch // the reference compares None with the digest
		return res
	}
	res.Actual = &actual
	res.OK = actual == expected.Str
	res.Reason = IntegrityReasonMismatch
	if res.OK {
		res.Reason = IntegrityReasonOK
	}
	return res
}

// isDraft reports an autosave checkpoint.
func isDraft(doc Value) bool {
	d, ok := doc.Get("draft")
	return ok && d.Truthy()
}

// artifactIntegrityBlock returns metadata.integrity when both are objects.
func artifactIntegrityBlock(doc Value) (Value, bool) {
	md, ok := doc.Get("metadata")
	if !ok || md.Kind != KindObject {
		return Value{}, false
	}
	integrity, ok := md.Get("integrity")
	if !ok || integrity.Kind != KindObject {
		return Value{}, false
	}
	return integrity, true
}

// checkFormatVersion returns the refusal message of an unreadable
// format_version, or ok. A JSON null reads as missing, as the reference's
// dict.get does.
func checkFormatVersion(doc Value) (string, bool) {
	v, present := doc.Get("format_version")
	if v.Kind == KindInt {
		if v.Big == nil && v.Int >= ArtifactMinFormatVersion && v.Int <= ArtifactFormatVersion {
			return "", true
		}
		if (v.Big != nil && v.Big.Sign() > 0) || (v.Big == nil && v.Int > ArtifactFormatVersion) {
			return fmt.Sprintf("unsupported .tine format_version=%s; written by a newer opentine", pyStr(v)), false
		}
	}
	found := "'missing'"
	if present && v.Kind != KindNull {
		found = pyRepr(v)
	}
	return fmt.Sprintf("unsupported .tine format_version=%s; supported (1, 2)", found), false
}

// pyHexDigest reports whether s passes the reference's digest shape test:
// 64 characters (code points) that Python's int(s, 16) accepts. That
// grammar allows surrounding whitespace, a sign, a 0x prefix and single
// underscores between digits; such a string is then a mismatch, not a
// malformed digest. Non-ASCII decimal digits, which Python also accepts,
// are treated as malformed.
func pyHexDigest(s string) bool {
	if utf8.RuneCountInString(s) != 64 {
		return false
	}
	t := strings.TrimFunc(s, isPySpace)
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	if len(t) >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		t = strings.TrimPrefix(t[2:], "_")
	}
	if t == "" {
		return false
	}
	prevUnderscore := true // no leading underscore
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '_':
			if prevUnderscore {
				return false
			}
			prevUnderscore = true
		case isHexDigit(c):
			prevUnderscore = false
		default:
			return false
		}
	}
	return !prevUnderscore
}

// isHexDigit reports an ASCII hexadecimal digit of either case.
func isHexDigit(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// MarshalJSON writes the verdict as the op integrity.verify outputs it:
// {ok, algorithm, expected, actual, reason}, nulls included, with expected
// in its v2 canonical form (null if it cannot be rendered).
func (r IntegrityResult) MarshalJSON() ([]byte, error) {
	expected := []byte("null")
	if b, err := CanonV2(r.Expected); err == nil {
		expected = b
	}
	return json.Marshal(struct {
		OK        bool            `json:"ok"`
		Algorithm *string         `json:"algorithm"`
		Expected  json.RawMessage `json:"expected"`
		Actual    *string         `json:"actual"`
		Reason    string          `json:"reason"`
	}{r.OK, r.Algorithm, expected, r.Actual, r.Reason})
}
