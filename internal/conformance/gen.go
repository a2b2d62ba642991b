package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// MaxGenBytes bounds what one gen recipe may assemble. The largest suite
// recipe is the 256 MiB+ pack of 16-bounds; a recipe over the bound is
// refused before anything is allocated.
const MaxGenBytes = 1 << 30

// Gen is an input.gen recipe (PROTOCOL "Input assembly"). Only the fields
// of its Kind are used; the documented defaults apply to absent ones.
type Gen struct {
	Kind string `json:"kind"`
	// nest: Open*Depth + Inner + Close*Depth, ASCII. nest-value: Inner (a
	// tagged tree) wrapped Depth times in Container ("array", the default,
	// or "object" under Key).
	Open      string          `json:"open"`
	Close     string          `json:"close"`
	Inner     json.RawMessage `json:"inner"`
	Depth     int64           `json:"depth"`
	Container string          `json:"container"`
	Key       string          `json:"key"`
	// repeat: Prefix + Unit*Count + Suffix. fill: Byte*Count. oids: Count lines.
	PrefixB64  string  `json:"prefix_b64"`
	UnitB64    string  `json:"unit_b64"`
	SuffixB64  string  `json:"suffix_b64"`
	Count      int64   `json:"count"`
	Byte       int64   `json:"byte"`
	ObjectType string  `json:"object_type"`
	Start      int64   `json:"start"`
	Terminator *string `json:"terminator"`
	// ObjectHash is tine's one extension of the oids recipe: the profile
	// the lines name, "sha256" (OpenTine's, the default) or "blake3" (the
	// blake3 suite, testdata/conformance-blake3). Both names are six
	// letters, so the recipe's size does not depend on it.
	ObjectHash string `json:"object_hash"`
}

// IsValue reports whether the recipe assembles a value rather than bytes.
func (g Gen) IsValue() bool { return g.Kind == "nest-value" }

// Size returns the number of bytes AssembleBytes would produce, computed
// without assembling, so callers can bound a recipe before allocating.
func (g Gen) Size() (int64, error) {
	switch g.Kind {
	case "nest":
		var inner string
		if err := json.Unmarshal(g.Inner, &inner); err != nil {
			return 0, fmt.Errorf("%w: nest inner must be a string", ErrGen)
		}
		return sizeSum(int64(len(inner)), sizeMul(g.Depth, int64(len(g.Open)+len(g.Close)))), nil
	case "repeat":
		p, u, s, err := g.repeatParts()
		if err != nil {
			return 0, err
		}
		return sizeSum(int64(len(p)+len(s)), sizeMul(g.Count, int64(len(u)))), nil
	case "fill":
		return sizeMul(g.Count, 1), nil
	case "oids":
		if _, err := g.objectHash(); err != nil {
			return 0, err
		}
		line := int64(len(g.ObjectType) + len(":sha256:") + 64 + len(g.terminator()))
		return sizeMul(g.Count, line), nil
	}
	return 0, fmt.Errorf("%w: %q is not a byte recipe", ErrGen, g.Kind)
}

// sizeMul and sizeSum saturate at MaxInt64 so an absurd recipe is refused
// rather than overflowing; a negative factor saturates too.
func sizeMul(n, each int64) int64 {
	if n < 0 || each < 0 || (each != 0 && n > math.MaxInt64/each) {
		return math.MaxInt64
	}
	return n * each
}

func sizeSum(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func (g Gen) terminator() string {
	if g.Terminator == nil {
		return "\n"
	}
	return *g.Terminator
}

// objectHash returns the profile an oids recipe names.
func (g Gen) objectHash() (string, error) {
	switch g.ObjectHash {
	case "", "sha256":
		return "sha256", nil
	case "blake3":
		return "blake3", nil
	}
	return "", fmt.Errorf("%w: oids object_hash %q", ErrGen, g.ObjectHash)
}

func (g Gen) repeatParts() (prefix, unit, suffix []byte, err error) {
	dec := base64.StdEncoding.Strict()
	if prefix, err = dec.DecodeString(g.PrefixB64); err == nil {
		if unit, err = dec.DecodeString(g.UnitB64); err == nil {
			suffix, err = dec.DecodeString(g.SuffixB64)
		}
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: repeat base64: %v", ErrGen, err)
	}
	return prefix, unit, suffix, nil
}

// AssembleBytes builds the bytes of a nest, repeat, fill or oids recipe.
func (g Gen) AssembleBytes() ([]byte, error) {
	size, err := g.Size()
	if err != nil {
		return nil, err
	}
	if size > MaxGenBytes {
		return nil, fmt.Errorf("%w: %d bytes is over the %d-byte bound", ErrGen, size, MaxGenBytes)
	}
	out := make([]byte, 0, size)
	switch g.Kind {
	case "nest":
		var inner string
		_ = json.Unmarshal(g.Inner, &inner) // checked by Size
		out = appendRepeat(out, []byte(g.Open), g.Depth)
		out = append(out, inner...)
		out = appendRepeat(out, []byte(g.Close), g.Depth)
	case "repeat":
		p, u, s, _ := g.repeatParts() // checked by Size
		out = append(out, p...)
		out = appendRepeat(out, u, g.Count)
		out = append(out, s...)
	case "fill":
		if g.Byte < 0 || g.Byte > 255 {
			return nil, fmt.Errorf("%w: fill byte %d", ErrGen, g.Byte)
		}
		out = appendRepeat(out, []byte{byte(g.Byte)}, g.Count)
	case "oids":
		term := g.terminator()
		algo, _ := g.objectHash() // checked by Size
		for i := g.Start; i < g.Start+g.Count; i++ {
			out = append(out, g.ObjectType...)
			out = append(out, ':')
			out = append(out, algo...)
			out = append(out, ':')
			hex := strconv.FormatUint(uint64(i), 16)
			for pad := len(hex); pad < 64; pad++ {
				out = append(out, '0')
			}
			out = append(out, hex...)
			out = append(out, term...)
		}
	}
	return out, nil
}

// appendRepeat appends unit count times, doubling the copied span so a
// 256 MiB run of one byte takes a few dozen copies.
func appendRepeat(dst, unit []byte, count int64) []byte {
	if count <= 0 || len(unit) == 0 {
		return dst
	}
	start := len(dst)
	dst = append(dst, unit...)
	total := int64(len(unit)) * count
	for int64(len(dst)-start) < total {
		n := int64(len(dst) - start)
		if n > total-n {
			n = total - n
		}
		dst = append(dst, dst[start:start+int(n)]...)
	}
	return dst
}

// AssembleValue builds the tagged tree of a nest-value recipe as JSON text:
// Inner wrapped Depth times in an array, or in an object under Key.
func (g Gen) AssembleValue() (json.RawMessage, error) {
	if !g.IsValue() {
		return nil, fmt.Errorf("%w: %q is not a value recipe", ErrGen, g.Kind)
	}
	if g.Depth < 0 || g.Depth > maxTreeDepth {
		return nil, fmt.Errorf("%w: nest-value depth %d", ErrGen, g.Depth)
	}
	if len(g.Inner) == 0 {
		return nil, fmt.Errorf("%w: nest-value without inner", ErrGen)
	}
	var open, close []byte
	switch g.Container {
	case "", "array":
		open, close = []byte("["), []byte("]")
	case "object":
		k, err := json.Marshal(g.Key)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrGen, err)
		}
		open, close = append(append([]byte("{"), k...), ':'), []byte("}")
	default:
		return nil, fmt.Errorf("%w: nest-value container %q", ErrGen, g.Container)
	}
	out := appendRepeat(nil, open, g.Depth)
	out = append(out, g.Inner...)
	out = appendRepeat(out, close, g.Depth)
	return out, nil
}
