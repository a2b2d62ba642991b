package objects

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// jtSeeds are inputs every JSON fuzz target starts from.
var jtSeeds = []string{
	`{}`, `[]`, `null`, `-0`, `0.5e-3`, `1e400`, `NaN`, `-Infinity`, `01`, `1.`, `"\u0061"`,
	`{"a":1,"\u0061":2}`, `{"k":"\ud800"}`, `{"k":"\ud83d\ude00"}`, "{\"k\":\"\xed\xa0\x80\"}",
	"\"\xf0\x9f\x98\x80\"", `{"\ue000":1,"\ud800\udc00":2}`, `[1e20,9007199254740993,12345678901234567890123]`,
	`{"a":[1,{"b":[true,false,null]}],"c":"x\ty\n\"\\\/"}`, `[[[[[[[[]]]]]]]]`, `{"k":"\"[[[["}`,
	jtEventJSON,
}

// jtOptsFromFlags derives parse options from a fuzzed byte.
func jtOptsFromFlags(flags uint8) ParseOptions {
	return ParseOptions{
		DemoteBigInts:       flags&1 != 0,
		AllowLoneSurrogates: flags&2 != 0,
		AllowNonFinite:      flags&4 != 0,
		RefuseUnsafeInts:    flags&8 != 0,
		MaxIntDigits:        int(flags>>4) * 4, // 0 = unbounded
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range jtSeeds {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, flags uint8) {
		opt := jtOptsFromFlags(flags)
		v, err := ParseJSON(data, opt)
		if err != nil {
			var pe *ParseError
			if jtKind(t, err); errors.As(err, &pe) && pe.Path != "" && pe.Path[0] != '$' {
				t.Fatalf("error path %q does not start at $", pe.Path)
			}
			return
		}
		// The strict reader never accepts what the standard library's
		// grammar check refuses (non-finite literals aside).
		if !opt.AllowNonFinite && !json.Valid(data) {
			t.Fatalf("accepted input encoding/json calls invalid: %q", data)
		}
		if !opt.AllowLoneSurrogates {
			if err := ValidateText(data); err != nil && HasReason(err, ReasonTextLoneSurrogate) {
				t.Fatalf("parsed input ValidateText refuses: %v", err)
			}
		}
		canon, err := CanonV3(v)
		if opt.RefuseUnsafeInts && HasReason(err, ReasonCanonIntegerOverflow) {
			t.Fatalf("RefuseUnsafeInts accepted an integer CanonV3 refuses: %q", data)
		}
		if err != nil {
			if _, ok := ReasonOf(err); !ok {
				t.Fatalf("CanonV3 error without a reason: %v", err)
			}
			return
		}
		jtCheckV3Fixpoint(t, canon)
	})
}

// jtCheckV3Fixpoint asserts that canonical v3 bytes parse under the body
// rules and re-encode to themselves (SPEC §0.2 demotion fixpoint).
func jtCheckV3Fixpoint(t *testing.T, canon []byte) {
	t.Helper()
	if err := ScanShape(canon, len(canon)+1); err != nil {
		t.Fatalf("canonical output fails the shape scan: %v\n%q", err, canon)
	}
	back, err := ParseJSON(canon, ParseOptions{DemoteBigInts: true})
	if err != nil {
		t.Fatalf("canonical output does not parse: %v\n%q", err, canon)
	}
	again, err := CanonV3(back)
	if err != nil || !bytes.Equal(again, canon) {
		t.Fatalf("not a fixpoint: %q -> %q (%v)", canon, again, err)
	}
}

func FuzzCanonV2(f *testing.F) {
	for _, s := range jtSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON(data, ParseOptions{AllowLoneSurrogates: true})
		if err != nil || jtHasSplitPair(v) {
			return
		}
		canon, err := CanonV2(v)
		if err != nil {
			t.Fatalf("CanonV2 of a parsed value failed: %v", err)
		}
		jtCheckV2Fixpoint(t, canon)
	})
}

// jtHasSplitPair reports whether a string in v holds a high surrogate
// directly followed by a low one, each as its own three WTF-8 bytes (raw
// CESU-8 input). Such text is two code points to Python as to us, and sorts
// as such, but its v2 escapes read back as one supplementary character that
// sorts elsewhere: v2 is not a fixpoint on it, in CPython either.
func jtHasSplitPair(v Value) bool {
	split := func(s string) bool {
		for i := 0; i+6 <= len(s); i++ {
			if s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xAF && s[i+3] == 0xED && s[i+4] >= 0xB0 && s[i+4] <= 0xBF {
				return true
			}
		}
		return false
	}
	switch v.Kind {
	case KindString:
		return split(v.Str)
	case KindArray:
		for _, e := range v.Array {
			if jtHasSplitPair(e) {
				return true
			}
		}
	case KindObject:
		for _, m := range v.Object {
			if split(m.Key) || jtHasSplitPair(m.Value) {
				return true
			}
		}
	}
	return false
}

// jtCheckV2Fixpoint asserts that v2 bytes are ASCII JSON that re-encodes to
// itself.
func jtCheckV2Fixpoint(t *testing.T, canon []byte) {
	t.Helper()
	for _, c := range canon {
		if c < 0x20 || c > 0x7E {
			t.Fatalf("v2 output is not printable ASCII: %q", canon)
		}
	}
	back, err := ParseJSON(canon, ParseOptions{AllowLoneSurrogates: true, MaxDepth: MaxCanonV2Depth})
	if err != nil {
		t.Fatalf("v2 output does not parse: %v\n%q", err, canon)
	}
	again, err := CanonV2(back)
	if err != nil || !bytes.Equal(again, canon) {
		t.Fatalf("not a fixpoint: %q -> %q (%v)", canon, again, err)
	}
}

// jtRefScanShape is an independent model of SPEC §0.5: strip string
// literals first, then count what remains.
func jtRefScanShape(data []byte, maxTokens int) (depthOK, tokensOK bool) {
	var outside []byte
	in := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case in && c == '\\':
			i++
		case in && c == '"':
			in = false
		case in:
		case c == '"':
			in = true
		default:
			outside = append(outside, c)
		}
	}
	depth, tokens := 0, 0
	depthOK, tokensOK = true, true
	for _, c := range outside {
		if strings.IndexByte("[{]},:", c) < 0 {
			continue
		}
		switch c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		}
		tokens++
		if depth > MaxJSONDepth && tokensOK {
			depthOK = false
			return
		}
		if tokens > maxTokens {
			tokensOK = false
			return
		}
	}
	return
}

func FuzzScanShape(f *testing.F) {
	for _, s := range jtSeeds {
		f.Add([]byte(s), uint16(8))
	}
	f.Add(jtNestBytes("[", "0", "]", 513), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, budget uint16) {
		maxTokens := int(budget)
		if maxTokens == 0 {
			maxTokens = MaxBodyTokens
		}
		err := ScanShape(data, int(budget))
		depthOK, tokensOK := jtRefScanShape(data, maxTokens)
		switch {
		case !depthOK:
			if !HasReason(err, ReasonShapeDepthExceeded) {
				t.Fatalf("want depth-exceeded, got %v", err)
			}
		case !tokensOK:
			if !HasReason(err, ReasonShapeTokensExceeded) {
				t.Fatalf("want tokens-exceeded, got %v", err)
			}
		case err != nil:
			t.Fatalf("model accepts, ScanShape says %v", err)
		}
	})
}

// jtGen builds random Values for the round-trip property.
type jtGen struct {
	r         *rand.Rand
	surrogate bool // may emit WTF-8 lone surrogates
}

func (g *jtGen) str() string {
	var b []byte
	for range g.r.IntN(8) {
		switch g.r.IntN(8) {
		case 0:
			b = append(b, byte(g.r.IntN(0x20)))
		case 1:
			b = append(b, `"\/`[g.r.IntN(3)], 0x7f)
		case 2:
			b = appendWTF8(b, rune(0x80+g.r.IntN(0xD800-0x80)))
		case 3:
			b = appendWTF8(b, rune(0xE000+g.r.IntN(0x2000)))
		case 4:
			b = appendWTF8(b, rune(0x10000+g.r.IntN(0x100000)))
		case 5:
			// A lone surrogate, never directly followed by another, so the
			// string stays well-formed WTF-8 (see jtHasSplitPair).
			if g.surrogate {
				b = append(appendWTF8(b, rune(0xD800+g.r.IntN(0x800))), '.')
			}
		default:
			b = append(b, byte('a'+g.r.IntN(26)))
		}
	}
	return string(b)
}

func (g *jtGen) value(depth int) Value {
	n := 7
	if depth > 4 {
		n = 5
	}
	switch g.r.IntN(n) {
	case 0:
		return Null()
	case 1:
		return Bool(g.r.IntN(2) == 0)
	case 2:
		switch g.r.IntN(3) {
		case 0:
			return Int(g.r.Int64N(2*maxSafeInt+1) - maxSafeInt)
		case 1:
			return Int(int64(g.r.IntN(2000)) - 1000)
		}
		return BigInt(new(big.Int).Lsh(big.NewInt(g.r.Int64N(1000)+1), uint(g.r.IntN(200))))
	case 3:
		for {
			f := math.Float64frombits(g.r.Uint64())
			if g.r.IntN(2) == 0 {
				f = float64(g.r.IntN(100000)) / float64(int(1)<<g.r.IntN(30))
			}
			if !math.IsNaN(f) && !math.IsInf(f, 0) {
				return Float(f)
			}
		}
	case 4:
		return String(g.str())
	case 5:
		a := make([]Value, g.r.IntN(5))
		for i := range a {
			a[i] = g.value(depth + 1)
		}
		return Array(a...)
	}
	var ms []Member
	seen := map[string]bool{}
	for range g.r.IntN(6) {
		k := g.str()
		if !seen[k] {
			seen[k] = true
			ms = append(ms, jtMem(k, g.value(depth+1)))
		}
	}
	return jtObj(ms...)
}

// TestCanonRoundTripProperty: for generated Values, the canonical bytes of
// either form parse back and re-encode to identical bytes.
func TestCanonRoundTripProperty(t *testing.T) {
	g := &jtGen{r: rand.New(rand.NewPCG(1, 2))}
	encoded := 0
	for range 3000 {
		v := g.value(0)
		canon, err := CanonV3(v)
		if err != nil {
			if !HasReason(err, ReasonCanonIntegerOverflow) {
				t.Fatalf("CanonV3: %v", err)
			}
			continue
		}
		encoded++
		jtCheckV3Fixpoint(t, canon)
	}
	if encoded < 1000 {
		t.Fatalf("only %d of 3000 generated values encoded; generator too narrow", encoded)
	}
	g = &jtGen{r: rand.New(rand.NewPCG(3, 4)), surrogate: true}
	for range 3000 {
		canon, err := CanonV2(g.value(0))
		if err != nil {
			t.Fatalf("CanonV2: %v", err)
		}
		jtCheckV2Fixpoint(t, canon)
	}
}
