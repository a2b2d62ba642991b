package plumbing

import (
	"fmt"

	"github.com/tinehq/tine/objects"
)

// Config bounds (SPEC §2.2, bounds table §1.6).
const (
	// MaxConfigBytes is the largest config.json accepted.
	MaxConfigBytes = 65536
	// MaxConfigTokens is the shape-scan budget of config.json.
	MaxConfigTokens = 10000
)

// ConfigBytes returns the config.json tine writes for a repository using
// algo: the four required pairs in v3-canonical form plus LF. For sha256 these
// are exactly OpenTine's bytes (sha256 900d885b…), so OpenTine opens it.
func ConfigBytes(algo objects.Algo) []byte {
	return []byte(`{"format":3,"object_hash":"` + string(algo) + `","repository":"opentine","version":1}` + "\n")
}

// ValidateConfig implements the config.validate op (SPEC §2.2) and returns
// the repository's hash profile. Over 65536 bytes is config.oversized; the
// shape scan (10000 tokens) runs before parsing (shape.tokens-exceeded,
// aliased to config.malformed); JSON that does not parse (duplicate keys
// included) is config.malformed; a non-object or a missing or different
// required pair is config.incompatible. Unknown extra keys and any
// formatting are accepted. tine accepts "blake3" as well as OpenTine's
// "sha256" for object_hash.
//
// The required pairs are compared strictly, so tine fails closed: format
// must be the JSON integer 3 and version the JSON integer 1, written as
// integer literals (3.0, 3e0, true and "3" are refused even where a lenient
// reader would call them equal), and repository and object_hash must be
// exactly the strings "opentine" and "sha256" or "blake3".
func ValidateConfig(b []byte) (objects.Algo, error) {
	if len(b) > MaxConfigBytes {
		return "", objects.Errorf(objects.ReasonConfigOversized, "config.json is %d bytes, the limit is %d", len(b), MaxConfigBytes)
	}
	if err := objects.ScanShape(b, MaxConfigTokens); err != nil {
		return "", err
	}
	// OpenTine reads the descriptor with a lenient JSON reader, so NaN and
	// lone surrogates do not make it malformed; they only fail the pair
	// checks if they sit in a required value.
	v, err := objects.ParseJSON(b, objects.ParseOptions{AllowLoneSurrogates: true, AllowNonFinite: true})
	if err != nil {
		return "", objects.Errorf(objects.ReasonConfigMalformed, "config.json is not JSON: %v", err)
	}
	if v.Kind != objects.KindObject {
		return "", objects.Errorf(objects.ReasonConfigIncompatible, "config.json is not a JSON object")
	}
	if f, ok := v.Get("format"); !ok || !isInteger(f, 3) {
		return "", objects.Errorf(objects.ReasonConfigIncompatible, "config.json: format must be the integer 3, found %s", describeValue(f, ok))
	}
	if f, ok := v.Get("version"); !ok || !isInteger(f, 1) {
		return "", objects.Errorf(objects.ReasonConfigIncompatible, "config.json: version must be the integer 1, found %s", describeValue(f, ok))
	}
	if r, ok := v.Get("repository"); !ok || r.Kind != objects.KindString || r.Str != "opentine" {
		return "", objects.Errorf(objects.ReasonConfigIncompatible, `config.json: repository must be the string "opentine", found %s`, describeValue(r, ok))
	}
	h, ok := v.Get("object_hash")
	if !ok || h.Kind != objects.KindString || !objects.Algo(h.Str).Valid() {
		return "", objects.Errorf(objects.ReasonConfigIncompatible, `config.json: object_hash must be the string "sha256" or "blake3", found %s`, describeValue(h, ok))
	}
	return objects.Algo(h.Str), nil
}

// isInteger reports whether v is a JSON integer literal equal to n. Floats
// and booleans never match, whatever their value: the descriptor is checked
// fail-closed (SPEC §2.2, "present and equal").
func isInteger(v objects.Value, n int64) bool {
	return v.Kind == objects.KindInt && v.Big == nil && v.Int == n
}

// describeValue names what a required key holds, for error messages,
// without echoing unbounded content.
func describeValue(v objects.Value, present bool) string {
	if !present {
		return "no such key"
	}
	switch v.Kind {
	case objects.KindInt:
		if v.Big != nil {
			return "an integer out of range"
		}
		return fmt.Sprintf("the integer %d", v.Int)
	case objects.KindFloat:
		return fmt.Sprintf("the float %g", v.Float)
	case objects.KindBool:
		return fmt.Sprintf("the boolean %t", v.Bool)
	case objects.KindString:
		if len(v.Str) > 64 {
			return "a long string"
		}
		return fmt.Sprintf("the string %q", v.Str)
	case objects.KindNull:
		return "null"
	case objects.KindArray:
		return "an array"
	}
	return "an object"
}
