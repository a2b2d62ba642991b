package objects

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

// jtBig parses a decimal integer of any size into a Value, as the suite's
// {"$i": "..."} tag does.
func jtBig(t testing.TB, s string) Value {
	t.Helper()
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("bad integer %q", s)
	}
	return BigInt(b)
}

// jtNest wraps inner in depth arrays, as the suite's nest-value generator.
func jtNest(depth int, inner Value) Value {
	v := inner
	for range depth {
		v = Array(v)
	}
	return v
}

// jtN wraps v as {"n": v}, the shape most canon vectors use.
func jtN(v Value) Value { return jtObj(jtMem("n", v)) }

type jtCanonCase struct {
	id     string // vector id, or a local name
	in     Value
	want   string // expected bytes when reason is empty
	reason Reason
}

// TestCanonV3Vectors transcribes the canon.v3 cases of 01-selftest,
// 02-canon-v3, 04-divergence and 99-repair.
func TestCanonV3Vectors(t *testing.T) {
	lone := String("\xed\xa0\x80") // {"$u": ["d800"]}
	cases := []jtCanonCase{
		{"selftest.tag.dollar-object-escape", jtObj(jtMem("$i", String("x"))), `{"$i":"x"}`, ""},
		{"selftest.tag.integer", jtN(Int(1)), `{"n":1}`, ""},
		{"selftest.untagged.arrays-and-objects", jtObj(
			jtMem("a", Array(Int(1), String("x"), Null())),
			jtMem("b", jtObj(jtMem("$i", String("1")), jtMem("other", Int(2))))),
			`{"a":[1,"x",null],"b":{"$i":"1","other":2}}`, ""},
		{"selftest.untagged.strings-and-literals", jtObj(jtMem("f", Bool(false)), jtMem("n", Null()),
			jtMem("s", String("$i")), jtMem("t", Bool(true))), `{"f":false,"n":null,"s":"$i","t":true}`, ""},
		{"canon.v3.array.empty", Array(), `[]`, ""},
		{"canon.v3.array.order-preserved", jtObj(jtMem("a", Array(Int(3), Int(1), Int(2)))), `{"a":[3,1,2]}`, ""},
		{"canon.v3.depth.at-512", jtNest(512, Int(0)), strings.Repeat("[", 512) + "0" + strings.Repeat("]", 512), ""},
		{"canon.v3.depth.at-513", jtNest(513, Int(0)), "", ReasonCanonDepthExceeded},
		{"canon.v3.float.1e-5", jtN(Float(1e-05)), `{"n":0.00001}`, ""},
		{"canon.v3.float.1e-6", jtN(Float(1e-06)), `{"n":0.000001}`, ""},
		{"canon.v3.float.1e-7", jtN(Float(1e-07)), `{"n":1e-7}`, ""},
		{"canon.v3.float.1e16", jtN(Float(1e16)), `{"n":10000000000000000}`, ""},
		{"canon.v3.float.1e20", jtN(Float(1e20)), `{"n":100000000000000000000}`, ""},
		{"canon.v3.float.1e21", jtN(Float(1e21)), `{"n":1e+21}`, ""},
		{"canon.v3.float.1e308", jtN(Float(1e308)), `{"n":1e+308}`, ""},
		{"canon.v3.float.nan", jtN(Float(math.NaN())), "", ReasonCanonNonFinite},
		{"canon.v3.float.negative-infinity", jtN(Float(math.Inf(-1))), "", ReasonCanonNonFinite},
		{"canon.v3.float.negative-zero", jtN(Float(math.Copysign(0, -1))), `{"n":0}`, ""},
		{"canon.v3.float.one", jtN(Float(1)), `{"n":1}`, ""},
		{"canon.v3.float.positive-infinity", jtN(Float(math.Inf(1))), "", ReasonCanonNonFinite},
		{"canon.v3.float.zero", jtN(Float(0)), `{"n":0}`, ""},
		{"canon.v3.integer.at-2-53", jtN(Int(9007199254740992)), "", ReasonCanonIntegerOverflow},
		{"canon.v3.integer.max-safe", jtN(Int(9007199254740991)), `{"n":9007199254740991}`, ""},
		{"canon.v3.integer.min-safe", jtN(Int(-9007199254740991)), `{"n":-9007199254740991}`, ""},
		{"canon.v3.integer.negative-2-53", jtN(Int(-9007199254740992)), "", ReasonCanonIntegerOverflow},
		{"canon.v3.integer.zero", jtN(Int(0)), `{"n":0}`, ""},
		{"canon.v3.key.empty-string", jtObj(jtMem("", Int(1))), `{"":1}`, ""},
		{"canon.v3.key.order-bmp", jtObj(jtMem("a", Int(2)), jtMem("b", Int(1))), `{"a":2,"b":1}`, ""},
		{"canon.v3.key.order-bmp-boundary", jtObj(jtMem("\u00ff", Int(2)), jtMem("\u0100", Int(1))), "{\"\xc3\xbf\":2,\"\xc4\x80\":1}", ""},
		{"canon.v3.literals.null-true-false", jtObj(jtMem("f", Bool(false)), jtMem("n", Null()), jtMem("t", Bool(true))),
			`{"f":false,"n":null,"t":true}`, ""},
		{"canon.v3.object.empty", jtObj(), `{}`, ""},
		{"canon.v3.separators.no-whitespace", jtObj(jtMem("a", Array(Int(1), jtObj(jtMem("b", Int(2))))), jtMem("c", jtObj())),
			`{"a":[1,{"b":2}],"c":{}}`, ""},
		{"canon.v3.string.escapes", jtObj(jtMem("k", String("\"\\\b\f\n\r\t\x1f"))), `{"k":"\"\\\b\f\n\r\t\u001f"}`, ""},
		{"canon.v3.string.non-ascii-literal", jtObj(jtMem("k", String("é☃"))), "{\"k\":\"\xc3\xa9\xe2\x98\x83\"}", ""},
		{"canon.v3.string.solidus-and-del", jtObj(jtMem("k", String("/\x7f"))), "{\"k\":\"/\x7f\"}", ""},
		{"canon.v3.surrogate.key", jtObj(jtMem(lone.Str, Int(1))), "", ReasonCanonUnencodableText},
		{"canon.v3.surrogate.value", jtObj(jtMem("k", lone)), "", ReasonCanonUnencodableText},
		{"canon.divergence.ascii-agreement.v3", jtObj(jtMem("a", Int(1)), jtMem("b", String("x")), jtMem("c", Array(Int(1), Int(2)))),
			`{"a":1,"b":"x","c":[1,2]}`, ""},
		{"canon.divergence.float-integral.v3", jtN(Float(1)), `{"n":1}`, ""},
		{"canon.divergence.negative-zero.v3", jtN(Float(math.Copysign(0, -1))), `{"n":0}`, ""},
		{"canon.divergence.nested-agreement.v3", jtObj(jtMem("outer", jtObj(jtMem("inner", Array(jtObj(jtMem("k", Null())), Bool(true), Bool(false)))))),
			`{"outer":{"inner":[{"k":null},true,false]}}`, ""},
		{"canon.divergence.non-ascii-value.v3", jtObj(jtMem("k", String("é"))), "{\"k\":\"\xc3\xa9\"}", ""},
		{"canon.divergence.nonbmp-key.v3", jtObj(jtMem("\ue000", Int(1)), jtMem("\U00010000", Int(2))),
			"\x7b\x22\xf0\x90\x80\x80\x22\x3a\x32\x2c\x22\xee\x80\x80\x22\x3a\x31\x7d", ""},
		{"repair.integer-rounded-to-a-double", jtN(jtBig(t, "9007199254740992")), "", ReasonCanonIntegerOverflow},
		{"repair.nan-to-null", jtN(Float(math.NaN())), "", ReasonCanonNonFinite},
	}
	jtRunCanon(t, "CanonV3", CanonV3, cases)
}

// jtRunCanon checks each case against enc.
func jtRunCanon(t *testing.T, name string, enc func(Value) ([]byte, error), cases []jtCanonCase) {
	t.Helper()
	for _, c := range cases {
		got, err := enc(c.in)
		if c.reason != "" {
			if !HasReason(err, c.reason) {
				t.Errorf("%s %s: got %q, %v; want reason %s", name, c.id, abbreviate(string(got)), err, c.reason)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s %s: got %q, %v; want %q", name, c.id, abbreviate(string(got)), err, abbreviate(c.want))
		}
	}
}

func TestCanonV3Edges(t *testing.T) {
	cases := []jtCanonCase{
		{"big-within-range", Value{Kind: KindInt, Big: big.NewInt(-5)}, `-5`, ""},
		{"big-beyond-int64", jtBig(t, "123456789012345678901234567890"), "", ReasonCanonIntegerOverflow},
		{"5e-324", Float(5e-324), `5e-324`, ""},
		{"max-double", Float(math.MaxFloat64), `1.7976931348623157e+308`, ""},
		{"1e21-neg", Float(-1e21), `-1e+21`, ""},
		{"just-below-1e21", Float(999999999999999900000), `999999999999999900000`, ""},
		{"1e-7-neg", Float(-1.5e-7), `-1.5e-7`, ""},
		{"0.1+0.2", Float(jtPointOne + jtPointTwo), `0.30000000000000004`, ""},
		{"1.5", Float(1.5), `1.5`, ""},
		{"123e-20", Float(1.23e-18), `1.23e-18`, ""},
		{"2^53-float", Float(9007199254740992), `9007199254740992`, ""},
		{"escape-all-controls", String("\x00\x01\x0b\x1e"), `"\u0000\u0001\u000b\u001e"`, ""},
		{"nonbmp-vs-bmp-sort", jtObj(jtMem("\uffff", Int(1)), jtMem("😀", Int(2)), jtMem("\ud7ff", Int(3)), jtMem("z", Int(4))),
			"{\"z\":4,\"\ud7ff\":3,\"😀\":2,\"\uffff\":1}", ""},
		{"prefix-keys", jtObj(jtMem("ab", Int(1)), jtMem("a", Int(2)), jtMem("", Int(3))), `{"":3,"a":2,"ab":1}`, ""},
		{"nonbmp-pair-order", jtObj(jtMem("\U0001F601", Int(1)), jtMem("\U0001F600", Int(2))), "{\"\U0001F600\":2,\"\U0001F601\":1}", ""},
		{"invalid-utf8", String("\xff"), "", ReasonCanonUnencodableText},
		{"low-surrogate", String("a\xed\xbf\xbf"), "", ReasonCanonUnencodableText},
		{"depth-513-objects", jtObjNest(513), "", ReasonCanonDepthExceeded},
	}
	jtRunCanon(t, "CanonV3", CanonV3, cases)
	if _, err := CanonV3(jtObjNest(512)); err != nil {
		t.Errorf("512 nested objects: %v", err)
	}
}

// jtObjNest wraps 0 in depth objects {"a": ...}.
func jtObjNest(depth int) Value {
	v := Int(0)
	for range depth {
		v = jtObj(jtMem("a", v))
	}
	return v
}

func TestCanonV3DuplicateMember(t *testing.T) {
	v := jtObj(jtMem("b", Int(1)), jtMem("a", Int(2)), jtMem("b", Int(3)))
	if _, err := CanonV3(v); err == nil || !strings.Contains(err.Error(), ErrDuplicateMember.Error()) {
		t.Fatalf("CanonV3 of a repeated key: %v", err)
	}
	if _, err := CanonV2(v); err == nil {
		t.Fatal("CanonV2 of a repeated key succeeded")
	}
}

func TestAppendCanonV3KeepsDstOnError(t *testing.T) {
	dst := []byte("prefix:")
	out, err := AppendCanonV3(dst, Array(Int(1), Float(math.NaN())))
	if err == nil || string(out) != "prefix:" {
		t.Fatalf("got %q, %v", out, err)
	}
	out, err = AppendCanonV3(dst, Array(Int(1)))
	if err != nil || string(out) != "prefix:[1]" {
		t.Fatalf("got %q, %v", out, err)
	}
}

func TestCompareUTF16(t *testing.T) {
	ordered := []string{"", "\x00", "A", "a", "ab", "\u00ff", "\u0100", "\ud7ff", "\U00010000", "\U0001F600", "\U0010FFFF", "\ue000", "\uffff"}
	for i := range ordered {
		for j := range ordered {
			got := compareUTF16(ordered[i], ordered[j])
			if (i < j) != (got < 0) || (i == j) != (got == 0) {
				t.Errorf("compareUTF16(%q, %q) = %d", ordered[i], ordered[j], got)
			}
		}
	}
}

func BenchmarkCanonV3(b *testing.B) {
	v, err := ParseJSON([]byte(jtEventJSON), ParseOptions{DemoteBigInts: true})
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 2048)
	b.ReportAllocs()
	for b.Loop() {
		out, err := AppendCanonV3(buf[:0], v)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(out)))
	}
}

// jtPointOne and jtPointTwo are variables so that 0.1+0.2 is computed in
// float64 at run time, not exactly by the constant evaluator.
var jtPointOne, jtPointTwo = 0.1, 0.2

// TestCanonV3DemotionFixpoint is the body of canon.v3.demotion.fixpoint: an
// integer literal past 2^53-1 read under the body rules is a float, and its
// canonical form is the literal again (SPEC §0.2).
func TestCanonV3DemotionFixpoint(t *testing.T) {
	for _, body := range []string{`{"n":100000000000000000000}`, `[9007199254740992,-9007199254740992,1e+21]`} {
		v, err := ParseJSON([]byte(body), ParseOptions{DemoteBigInts: true})
		if err != nil {
			t.Fatal(err)
		}
		got, err := CanonV3(v)
		if err != nil || string(got) != body {
			t.Errorf("CanonV3(ParseJSON(%s)) = %s, %v", body, got, err)
		}
		v, err = ParseJSON([]byte(body), ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := CanonV3(v); !HasReason(err, ReasonCanonIntegerOverflow) {
			t.Errorf("without demotion %s: %v, want canon.integer-overflow", body, err)
		}
	}
}
