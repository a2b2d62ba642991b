package plumbing

import (
	"math/big"

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
// aliased to config.malformed); JSON that does not parse is
// config.malformed; a non-object or a missing or different required pair is
// config.incompatible. Unknown extra keys and any formatting are accepted.
// tine accepts "blake3" as well as OpenTine's "sha256" for object_hash.
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
	if f, ok := v.Get("format"); !ok || !numberEquals(f, 3) {
		return "", objects.Errorf(objects.ReasonConfigIncompatible, "config.json: format must be 3")
	}
	if f, ok := v.Get("version"); !ok || !numberEquals(f, 1) {
		return "", objects.Errorf(objects.ReasonConfigIncompatible, "config.json: version must be 1")
	}
	if r, ok := v.Get("repository"); !ok || r.Kind != objects.KindString || r.Str != "opentine" {
		return "", objects.Errorf(objects.ReasonConfigIncompatible, `config.json: repository must be "opentine"`)
	}
	h, ok := v.Get("object_hash")
	if !ok || h.Kind != objects.KindString || !objects.Algo(h.Str).Valid() {
		return "", objects.Errorf(objects.ReasonConfigIncompatible, `config.json: object_hash must be "sha256" or "blake3"`)
	}
	return objects.Algo(h.Str), nil
}

// numberEquals reports whether v equals the integer n under the reference
// reader's equality, where 3, 3.0 and (for 1) true all compare equal.
func numberEquals(v objects.Value, n int64) bool {
	switch v.Kind {
	case objects.KindInt:
		if v.Big != nil {
			return v.Big.Cmp(big.NewInt(n)) == 0
		}
		return v.Int == n
	case objects.KindFloat:
		return v.Float == float64(n)
	case objects.KindBool:
		return (v.Bool && n == 1) || (!v.Bool && n == 0)
	}
	return false
}
