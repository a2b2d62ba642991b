package objects

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf8"
)

// Bounds of the portable .tine artifact reader (SPEC §3.1, §3.7, §1.6).
const (
	// MaxArtifactBytes is the largest .tine file a reader accepts: 256 MiB.
	MaxArtifactBytes = 256 << 20
	// MaxArtifactIntDigits is the most decimal digits an integer literal of a
	// .tine document may have; 4096 is accepted, 4097 refused.
	MaxArtifactIntDigits = 4096
	// artifactTokenFloor, artifactTokenCeiling and artifactTokenDensity set
	// the structural-token budget of an artifact: one token per four bytes,
	// never below 200000 nor above 16000000 (SPEC §0.5).
	artifactTokenFloor   = 200_000
	artifactTokenCeiling = 16_000_000
	artifactTokenDensity = 4
)

// utf8BOM is the byte-order mark a .tine reader skips (see ParseArtifact).
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ArtifactTokenBudget returns the structural-token budget of a .tine
// document of n bytes: min(16000000, max(200000, n/4)) (SPEC §0.5). The
// budget grows with the file so that a long ordinary run stays readable,
// while a dense all-brackets file cannot amplify into unbounded memory.
func ArtifactTokenBudget(n int) int {
	return min(artifactTokenCeiling, max(artifactTokenFloor, n/artifactTokenDensity))
}

// ParseArtifact reads the bytes of a portable .tine artifact under the
// reader rules of SPEC §3.7, in the reference reader's order, refusing the
// whole input on the first fault with a *FormatError:
//
//  1. more than MaxArtifactBytes: artifact.structure-excessive;
//  2. any NUL byte, before parsing: artifact.nul-byte;
//  3. the structural scan with ArtifactTokenBudget(len) tokens and depth
//     512: artifact.structure-excessive;
//  4. the raw CESU-8 spelling of a surrogate: artifact.lone-surrogate; any
//     other invalid UTF-8: artifact.malformed-json;
//  5. the strict parse: artifact.malformed-json, artifact.duplicate-key (no
//     last-wins), artifact.non-finite (NaN, Infinity, -Infinity, or a
//     literal overflowing to infinity such as 1e400),
//     artifact.integer-too-many-digits (an integer literal of more than 4096
//     digits; a digit run inside a string is text);
//  6. an escaped unpaired surrogate anywhere: artifact.lone-surrogate.
//
// A leading UTF-8 byte-order mark is skipped, as the reference reader
// (which decodes bytes with BOM detection) does. The result may be any
// JSON value: the conformance op artifact.parse accepts a top-level array,
// while a .tine document proper must be an object (DecodeArtifact). The
// format_version is not examined here.
func ParseArtifact(data []byte) (Value, error) {
	if len(data) > MaxArtifactBytes {
		return Value{}, Errorf(ReasonArtifactStructureExcessive, ".tine artifact is %d bytes, more than the %d-byte limit", len(data), MaxArtifactBytes)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return Value{}, Errorf(ReasonArtifactNulByte, ".tine artifact holds a NUL byte at offset %d", i)
	}
	if err := ScanShape(data, ArtifactTokenBudget(len(data))); err != nil {
		return Value{}, &FormatError{Reason: ReasonArtifactStructureExcessive, Detail: ".tine artifact: " + err.Error()}
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if err := checkArtifactUTF8(data); err != nil {
		return Value{}, err
	}
	v, err := ParseJSON(data, ParseOptions{
		MaxDepth:            MaxJSONDepth,
		MaxIntDigits:        MaxArtifactIntDigits,
		AllowLoneSurrogates: true, // escaped ones are refused after the parse, as step 6
	})
	if err != nil {
		return Value{}, artifactParseError(err)
	}
	if path, ok := findLoneSurrogate(v, 0); ok {
		return Value{}, Errorf(ReasonArtifactLoneSurrogate, ".tine artifact holds an unpaired surrogate at %s", path)
	}
	return v, nil
}

// checkArtifactUTF8 is step 4 of ParseArtifact: the whole file must decode
// as UTF-8 before any grammar is applied.
func checkArtifactUTF8(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		n, surrogate := decodeWTF8(data[i:])
		if surrogate {
			return Errorf(ReasonArtifactLoneSurrogate, ".tine artifact holds raw surrogate bytes (CESU-8) at offset %d", i)
		}
		if n == 0 {
			return Errorf(ReasonArtifactMalformedJson, ".tine artifact is not UTF-8 at offset %d", i)
		}
		i += n
	}
	return nil
}

// artifactParseError maps a *ParseError to its .tine reason code.
func artifactParseError(err error) error {
	var pe *ParseError
	if !errors.As(err, &pe) {
		return &FormatError{Reason: ReasonArtifactMalformedJson, Detail: ".tine artifact: " + err.Error()}
	}
	r := ReasonArtifactMalformedJson
	switch pe.Kind {
	case ParseDuplicateKey:
		r = ReasonArtifactDuplicateKey
	case ParseNonFinite:
		r = ReasonArtifactNonFinite
	case ParseTooManyDigits:
		r = ReasonArtifactIntegerTooManyDigits
	case ParseDepth:
		r = ReasonArtifactStructureExcessive
	case ParseLoneSurrogate:
		r = ReasonArtifactLoneSurrogate
	}
	return &FormatError{Reason: r, Detail: ".tine artifact: " + pe.Error()}
}

// findLoneSurrogate returns a JSON-pointer-like path to the first key or
// string holding a WTF-8 surrogate. The parse bounded the depth to 512.
func findLoneSurrogate(v Value, depth int) (string, bool) {
	switch v.Kind {
	case KindString:
		return "", hasWTF8Surrogate(v.Str)
	case KindArray:
		for i := range v.Array {
			if p, ok := findLoneSurrogate(v.Array[i], depth+1); ok {
				return "/" + strconv.Itoa(i) + p, true
			}
		}
	case KindObject:
		for i := range v.Object {
			m := &v.Object[i]
			if hasWTF8Surrogate(m.Key) {
				return "/" + abbreviate(m.Key) + " (key)", true
			}
			if p, ok := findLoneSurrogate(m.Value, depth+1); ok {
				return "/" + abbreviate(m.Key) + p, true
			}
		}
	}
	return "", false
}

// hasWTF8Surrogate reports whether s carries a surrogate as ED A0..BF xx.
func hasWTF8Surrogate(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			return true
		}
	}
	return false
}
