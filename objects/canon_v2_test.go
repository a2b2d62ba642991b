package objects

import (
	"math"
	"strings"
	"testing"
)

// TestCanonV2Vectors transcribes the canon.v2 cases of 01-selftest,
// 03-canon-v2 and 04-divergence.
func TestCanonV2Vectors(t *testing.T) {
	lone := "\xed\xa0\x80" // {"$u": ["d800"]}
	digits4097 := strings.Repeat("9", 4097)
	cases := []jtCanonCase{
		{"selftest.tag.code-units-and-keys", jtObj(jtMem(lone, Int(1)), jtMem("a", Int(2))), `{"a":2,"\ud800":1}`, ""},
		{"selftest.tag.float-integral", jtN(Float(1)), `{"n":1.0}`, ""},
		{"selftest.tag.integer-beyond-double", jtN(jtBig(t, "12345678901234567890123456789")), `{"n":12345678901234567890123456789}`, ""},
		{"canon.v2.array.order-preserved", jtObj(jtMem("a", Array(Int(3), Int(1), Int(2)))), `{"a":[3,1,2]}`, ""},
		{"canon.v2.escaping.non-ascii", jtObj(jtMem("k", String("é☃"))), `{"k":"\u00e9\u2603"}`, ""},
		{"canon.v2.escaping.non-bmp-surrogate-pair", jtObj(jtMem("k", String("😀"))), `{"k":"\ud83d\ude00"}`, ""},
		{"canon.v2.float.1e-5", jtN(Float(1e-5)), `{"n":1e-05}`, ""},
		{"canon.v2.float.1e-6", jtN(Float(1e-6)), `{"n":1e-06}`, ""},
		{"canon.v2.float.1e-7", jtN(Float(1e-7)), `{"n":1e-07}`, ""},
		{"canon.v2.float.1e16", jtN(Float(1e16)), `{"n":1e+16}`, ""},
		{"canon.v2.float.1e20", jtN(Float(1e20)), `{"n":1e+20}`, ""},
		{"canon.v2.float.1e21", jtN(Float(1e21)), `{"n":1e+21}`, ""},
		{"canon.v2.float.1e308", jtN(Float(1e308)), `{"n":1e+308}`, ""},
		{"canon.v2.float.nan", jtN(Float(math.NaN())), "", ReasonCanonNonFinite},
		{"canon.v2.float.negative-infinity", jtN(Float(math.Inf(-1))), "", ReasonCanonNonFinite},
		{"canon.v2.float.negative-zero", jtN(Float(math.Copysign(0, -1))), `{"n":-0.0}`, ""},
		{"canon.v2.float.one", jtN(Float(1)), `{"n":1.0}`, ""},
		{"canon.v2.float.positive-infinity", jtN(Float(math.Inf(1))), "", ReasonCanonNonFinite},
		{"canon.v2.float.small-positional", jtN(Float(0.0001)), `{"n":0.0001}`, ""},
		{"canon.v2.float.zero", jtN(Float(0)), `{"n":0.0}`, ""},
		{"canon.v2.integer.4097-digits-accepts", jtN(jtBig(t, digits4097)), `{"n":` + digits4097 + `}`, ""},
		{"canon.v2.integer.at-2-53", jtN(Int(9007199254740992)), `{"n":9007199254740992}`, ""},
		{"canon.v2.key.empty-string", jtObj(jtMem("", Int(1))), `{"":1}`, ""},
		{"canon.v2.key.order-code-point", jtObj(jtMem("a", Int(2)), jtMem("b", Int(1))), `{"a":2,"b":1}`, ""},
		{"canon.v2.literals.null-true-false", jtObj(jtMem("f", Bool(false)), jtMem("n", Null()), jtMem("t", Bool(true))),
			`{"f":false,"n":null,"t":true}`, ""},
		{"canon.v2.object.empty", jtObj(), `{}`, ""},
		{"canon.v2.string.escapes", jtObj(jtMem("k", String("\"\\\b\f\n\r\t\x1f"))), `{"k":"\"\\\b\f\n\r\t\u001f"}`, ""},
		{"canon.v2.surrogate.key-accepts", jtObj(jtMem(lone, Int(1))), `{"\ud800":1}`, ""},
		{"canon.v2.surrogate.value-accepts", jtObj(jtMem("k", String(lone))), `{"k":"\ud800"}`, ""},
		{"canon.divergence.ascii-agreement.v2", jtObj(jtMem("a", Int(1)), jtMem("b", String("x")), jtMem("c", Array(Int(1), Int(2)))),
			`{"a":1,"b":"x","c":[1,2]}`, ""},
		{"canon.divergence.float-integral.v2", jtN(Float(1)), `{"n":1.0}`, ""},
		{"canon.divergence.negative-zero.v2", jtN(Float(math.Copysign(0, -1))), `{"n":-0.0}`, ""},
		{"canon.divergence.nested-agreement.v2", jtObj(jtMem("outer", jtObj(jtMem("inner", Array(jtObj(jtMem("k", Null())), Bool(true), Bool(false)))))),
			`{"outer":{"inner":[{"k":null},true,false]}}`, ""},
		{"canon.divergence.non-ascii-value.v2", jtObj(jtMem("k", String("é"))), `{"k":"\u00e9"}`, ""},
		{"canon.divergence.nonbmp-key.v2", jtObj(jtMem("\ue000", Int(1)), jtMem("\U00010000", Int(2))), `{"\ue000":1,"\ud800\udc00":2}`, ""},
	}
	jtRunCanon(t, "CanonV2", CanonV2, cases)
}

func TestCanonV2Edges(t *testing.T) {
	cases := []jtCanonCase{
		{"del", String("\x7f~ "), `"\u007f~ "`, ""},
		{"controls", String("\x00\x0b\x1f"), `"\u0000\u000b\u001f"`, ""},
		{"solidus-not-escaped", String("a/b"), `"a/b"`, ""},
		{"c1-control", String("\u0080\u00a0"), `"\u0080\u00a0"`, ""},
		{"max-bmp", String("\uffff"), `"\uffff"`, ""},
		{"max-code-point", String("\U0010FFFF"), `"\udbff\udfff"`, ""},
		{"lone-low", String("x\xed\xbf\xbfy"), `"x\udfffy"`, ""},
		{"cesu-pair-stays-two-units", String("\xed\xa0\xbd\xed\xb8\x80"), `"\ud83d\ude00"`, ""},
		{"invalid-utf8", String("\xff"), "", ReasonCanonUnencodableText},
		{"int64-min", Int(math.MinInt64), `-9223372036854775808`, ""},
		{"1e15", Float(1e15), `1000000000000000.0`, ""},
		{"9999999999999998", Float(9999999999999998), `9999999999999998.0`, ""},
		{"1.2345678901234568e+17", Float(123456789012345678), `1.2345678901234568e+17`, ""},
		{"0.1+0.2", Float(jtPointOne + jtPointTwo), `0.30000000000000004`, ""},
		{"5e-324", Float(5e-324), `5e-324`, ""},
		{"-1e-5", Float(-1e-5), `-1e-05`, ""},
		{"1e-4-boundary", Float(0.00012), `0.00012`, ""},
		{"max-double", Float(math.MaxFloat64), `1.7976931348623157e+308`, ""},
		{"code-point-order", jtObj(jtMem("\uffff", Int(1)), jtMem("😀", Int(2)), jtMem("\xed\xa0\x80", Int(3)), jtMem("\ud7ff", Int(4))),
			`{"\ud7ff":4,"\ud800":3,"\uffff":1,"\ud83d\ude00":2}`, ""},
		{"depth-768", jtNest(768, Int(0)), strings.Repeat("[", 768) + "0" + strings.Repeat("]", 768), ""},
		{"depth-769", jtNest(769, Int(0)), "", ReasonCanonDepthExceeded},
	}
	jtRunCanon(t, "CanonV2", CanonV2, cases)
}

func TestAppendCanonV2KeepsDstOnError(t *testing.T) {
	dst := []byte("x")
	out, err := AppendCanonV2(dst, jtObj(jtMem("a", Float(math.Inf(1)))))
	if err == nil || string(out) != "x" {
		t.Fatalf("got %q, %v", out, err)
	}
}
