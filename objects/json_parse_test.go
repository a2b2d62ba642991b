package objects

import (
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

// jtMem builds a Member for the JSON tests.
func jtMem(k string, v Value) Member { return Member{Key: k, Value: v} }

// jtKind returns the ParseErrorKind of err, failing the test if err is not a
// *ParseError.
func jtKind(t *testing.T, err error) ParseErrorKind {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	return pe.Kind
}

func TestParseJSONAccepts(t *testing.T) {
	big20, _ := new(big.Int).SetString("12345678901234567890", 10)
	bigNeg, _ := new(big.Int).SetString("-9223372036854775809", 10)
	cases := []struct {
		in   string
		opt  ParseOptions
		want Value
	}{
		{`null`, ParseOptions{}, Null()},
		{` true `, ParseOptions{}, Bool(true)},
		{"\t\r\n false\n", ParseOptions{}, Bool(false)},
		{`0`, ParseOptions{}, Int(0)},
		{`-0`, ParseOptions{}, Int(0)},
		{`-0.0`, ParseOptions{}, Float(math.Copysign(0, -1))},
		{`1.0`, ParseOptions{}, Float(1)},
		{`1E2`, ParseOptions{}, Float(100)},
		{`1e-2`, ParseOptions{}, Float(0.01)},
		{`2.5e+3`, ParseOptions{}, Float(2500)},
		{`5e-324`, ParseOptions{}, Float(5e-324)},
		{`1e-400`, ParseOptions{}, Float(0)},
		{`-42`, ParseOptions{}, Int(-42)},
		{`9223372036854775807`, ParseOptions{}, Int(math.MaxInt64)},
		{`-9223372036854775808`, ParseOptions{}, Int(math.MinInt64)},
		{`12345678901234567890`, ParseOptions{}, Value{Kind: KindInt, Big: big20}},
		{`-9223372036854775809`, ParseOptions{}, Value{Kind: KindInt, Big: bigNeg}},
		{`9007199254740991`, ParseOptions{DemoteBigInts: true}, Int(9007199254740991)},
		{`-9007199254740991`, ParseOptions{DemoteBigInts: true}, Int(-9007199254740991)},
		{`9007199254740992`, ParseOptions{DemoteBigInts: true}, Float(9007199254740992)},
		{`-9007199254740993`, ParseOptions{DemoteBigInts: true}, Float(-9007199254740992)},
		{`100000000000000000000`, ParseOptions{DemoteBigInts: true}, Float(1e20)},
		{`""`, ParseOptions{}, String("")},
		{`"a\"\\\/\b\f\n\r\tz"`, ParseOptions{}, String("a\"\\/\b\f\n\r\tz")},
		{`"\u00e9\u2603"`, ParseOptions{}, String("é☃")},
		{`"\u0000"`, ParseOptions{}, String("\x00")},
		{`"\ud83d\ude00"`, ParseOptions{}, String("😀")},
		{`"\uD83D\uDE00"`, ParseOptions{}, String("😀")},
		{"\"\xf0\x9f\x98\x80\"", ParseOptions{}, String("😀")},
		{"\"\xed\x9f\xbf\xee\x80\x80\"", ParseOptions{}, String("\ud7ff\ue000")},
		{"\"\xef\xbf\xbd\"", ParseOptions{}, String("\ufffd")},
		{`"\ud800"`, ParseOptions{AllowLoneSurrogates: true}, String("\xed\xa0\x80")},
		{`"\udfffx"`, ParseOptions{AllowLoneSurrogates: true}, String("\xed\xbf\xbfx")},
		{`"\ud800\u0041"`, ParseOptions{AllowLoneSurrogates: true}, String("\xed\xa0\x80A")},
		{`"\ud800\ud800\udc00"`, ParseOptions{AllowLoneSurrogates: true}, String("\xed\xa0\x80\U00010000")},
		{"\"\xed\xa0\x80\"", ParseOptions{AllowLoneSurrogates: true}, String("\xed\xa0\x80")},
		{`NaN`, ParseOptions{AllowNonFinite: true}, Float(math.NaN())},
		{`[Infinity,-Infinity,1e400]`, ParseOptions{AllowNonFinite: true},
			Array(Float(math.Inf(1)), Float(math.Inf(-1)), Float(math.Inf(1)))},
		{`[]`, ParseOptions{}, Array()},
		{`{}`, ParseOptions{}, jtObj()},
		{`[ 1 , [ ] , { } ]`, ParseOptions{}, Array(Int(1), Array(), jtObj())},
		{`{"b":1,"a":{"b":2}}`, ParseOptions{}, jtObj(jtMem("b", Int(1)), jtMem("a", jtObj(jtMem("b", Int(2)))))},
		{`{"a":1,"A":2,"a ":3}`, ParseOptions{}, jtObj(jtMem("a", Int(1)), jtMem("A", Int(2)), jtMem("a ", Int(3)))},
		{`[1,[2,[3]],4]`, ParseOptions{MaxDepth: 3}, Array(Int(1), Array(Int(2), Array(Int(3))), Int(4))},
		{`[1234]`, ParseOptions{MaxIntDigits: 4}, Array(Int(1234))},
		{`-1234`, ParseOptions{MaxIntDigits: 4}, Int(-1234)},
		{`12345.678e1`, ParseOptions{MaxIntDigits: 4}, Float(123456.78)},
		{`"12345"`, ParseOptions{MaxIntDigits: 4}, String("12345")},
	}
	for _, c := range cases {
		got, err := ParseJSON([]byte(c.in), c.opt)
		if err != nil {
			t.Errorf("ParseJSON(%q): %v", c.in, err)
			continue
		}
		if !jtEqual(got, c.want) {
			t.Errorf("ParseJSON(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

// jtEqual compares Values, treating NaN as equal to NaN, telling -0.0 from
// 0.0, and comparing Big by value.
func jtEqual(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case KindFloat:
		if math.IsNaN(a.Float) || math.IsNaN(b.Float) {
			return math.IsNaN(a.Float) && math.IsNaN(b.Float)
		}
		return a.Float == b.Float && math.Signbit(a.Float) == math.Signbit(b.Float)
	case KindInt:
		if (a.Big == nil) != (b.Big == nil) {
			return false
		}
		return a.Int == b.Int && (a.Big == nil || a.Big.Cmp(b.Big) == 0)
	case KindArray:
		if len(a.Array) != len(b.Array) {
			return false
		}
		for i := range a.Array {
			if !jtEqual(a.Array[i], b.Array[i]) {
				return false
			}
		}
		return true
	case KindObject:
		if len(a.Object) != len(b.Object) {
			return false
		}
		for i := range a.Object {
			if a.Object[i].Key != b.Object[i].Key || !jtEqual(a.Object[i].Value, b.Object[i].Value) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func TestParseJSONRejects(t *testing.T) {
	cases := []struct {
		in   string
		opt  ParseOptions
		kind ParseErrorKind
	}{
		{``, ParseOptions{}, ParseSyntax},
		{`   `, ParseOptions{}, ParseSyntax},
		{`-`, ParseOptions{}, ParseSyntax},
		{`01`, ParseOptions{}, ParseSyntax},
		{`-01`, ParseOptions{}, ParseSyntax},
		{`1.`, ParseOptions{}, ParseSyntax},
		{`.5`, ParseOptions{}, ParseSyntax},
		{`1e`, ParseOptions{}, ParseSyntax},
		{`1e+`, ParseOptions{}, ParseSyntax},
		{`+1`, ParseOptions{}, ParseSyntax},
		{`0x10`, ParseOptions{}, ParseSyntax},
		{`1 2`, ParseOptions{}, ParseSyntax},
		{`{} x`, ParseOptions{}, ParseSyntax},
		{`tru`, ParseOptions{}, ParseSyntax},
		{`nul`, ParseOptions{}, ParseSyntax},
		{`True`, ParseOptions{}, ParseSyntax},
		{`-NaN`, ParseOptions{AllowNonFinite: true}, ParseSyntax},
		{`Infinit`, ParseOptions{AllowNonFinite: true}, ParseSyntax},
		{`[1,]`, ParseOptions{}, ParseSyntax},
		{`[,1]`, ParseOptions{}, ParseSyntax},
		{`[1`, ParseOptions{}, ParseSyntax},
		{`[1 2]`, ParseOptions{}, ParseSyntax},
		{`{"a":1,}`, ParseOptions{}, ParseSyntax},
		{`{"a" 1}`, ParseOptions{}, ParseSyntax},
		{`{a:1}`, ParseOptions{}, ParseSyntax},
		{`{'a':1}`, ParseOptions{}, ParseSyntax},
		{`{"a":1`, ParseOptions{}, ParseSyntax},
		{`{"a":}`, ParseOptions{}, ParseSyntax},
		{`{1:1}`, ParseOptions{}, ParseSyntax},
		{`"abc`, ParseOptions{}, ParseSyntax},
		{`"a\"`, ParseOptions{}, ParseSyntax},
		{`"\x41"`, ParseOptions{}, ParseSyntax},
		{`"\u12"`, ParseOptions{}, ParseSyntax},
		{`"\u12G4"`, ParseOptions{}, ParseSyntax},
		{`"\`, ParseOptions{}, ParseSyntax},
		{"\"a\x00b\"", ParseOptions{}, ParseSyntax},
		{"\"a\nb\"", ParseOptions{}, ParseSyntax},
		{"\"\x1f\"", ParseOptions{}, ParseSyntax},
		{"\"\\n\x01\"", ParseOptions{}, ParseSyntax},
		{"\xef\xbb\xbf{}", ParseOptions{}, ParseSyntax}, // a BOM is not whitespace
		{"\"\xc0\xaf\"", ParseOptions{}, ParseSyntax},   // overlong '/'
		{"\"\xe0\x80\xaf\"", ParseOptions{}, ParseSyntax},
		{"\"\xff\"", ParseOptions{}, ParseSyntax},
		{"\"\x80\"", ParseOptions{}, ParseSyntax},
		{"\"\xe2\x82\"", ParseOptions{}, ParseSyntax}, // truncated sequence
		{"\"\xf4\x90\x80\x80\"", ParseOptions{}, ParseSyntax},
		{"\"\\n\xff\"", ParseOptions{}, ParseSyntax},
		{"\v1", ParseOptions{}, ParseSyntax},
		{`{"a":1,"a":2}`, ParseOptions{}, ParseDuplicateKey},
		{`{"a":1,"\u0061":2}`, ParseOptions{}, ParseDuplicateKey},
		{`{"\u00e9":1,"é":2}`, ParseOptions{}, ParseDuplicateKey},
		{`{"x":[{"k":1,"j":{"d":1,"d":1}}]}`, ParseOptions{}, ParseDuplicateKey},
		{`[{"a":1},{"a":1,"b":2,"a":3}]`, ParseOptions{}, ParseDuplicateKey},
		{`"\ud800"`, ParseOptions{}, ParseLoneSurrogate},
		{`"\udc00"`, ParseOptions{}, ParseLoneSurrogate},
		{`"\ud800\u0041"`, ParseOptions{}, ParseLoneSurrogate},
		{`"\ud83d\ud83d"`, ParseOptions{}, ParseLoneSurrogate},
		{`"\ude00\ud83d"`, ParseOptions{}, ParseLoneSurrogate},
		{`"\ud83d\\ude00"`, ParseOptions{}, ParseLoneSurrogate},
		{"\"\xed\xa0\x80\"", ParseOptions{}, ParseLoneSurrogate},
		{"\"\xed\xbf\xbf\"", ParseOptions{}, ParseLoneSurrogate},
		{"\"\xed\xa0\xbd\xed\xb8\x80\"", ParseOptions{}, ParseLoneSurrogate}, // CESU-8 pair
		{"{\"\xed\xa0\x80\":1}", ParseOptions{}, ParseLoneSurrogate},
		{`NaN`, ParseOptions{}, ParseNonFinite},
		{`[Infinity]`, ParseOptions{}, ParseNonFinite},
		{`{"a":-Infinity}`, ParseOptions{}, ParseNonFinite},
		{`1e400`, ParseOptions{}, ParseNonFinite},
		{`-1.5e309`, ParseOptions{}, ParseNonFinite},
		{"1" + strings.Repeat("0", 400), ParseOptions{DemoteBigInts: true}, ParseIntegerOverflow},
		{`12345`, ParseOptions{MaxIntDigits: 4}, ParseTooManyDigits},
		{`[-12345]`, ParseOptions{MaxIntDigits: 4}, ParseTooManyDigits},
		{`[[1]]`, ParseOptions{MaxDepth: 1}, ParseDepth},
		{`{"a":{"b":{}}}`, ParseOptions{MaxDepth: 2}, ParseDepth},
		{strings.Repeat("[", 513) + strings.Repeat("]", 513), ParseOptions{}, ParseDepth},
		{strings.Repeat(`{"a":`, 513) + "0" + strings.Repeat("}", 513), ParseOptions{}, ParseDepth},
		{strings.Repeat("[", 200000), ParseOptions{MaxDepth: 1 << 30}, ParseDepth},
	}
	for _, c := range cases {
		v, err := ParseJSON([]byte(c.in), c.opt)
		if err == nil {
			t.Errorf("ParseJSON(%q) = %#v, want a %v error", abbreviate(c.in), v, c.kind)
			continue
		}
		if got := jtKind(t, err); got != c.kind {
			t.Errorf("ParseJSON(%q): %v, want kind %v", abbreviate(c.in), err, c.kind)
		}
	}
}

func TestParseJSONDepthBoundary(t *testing.T) {
	at := strings.Repeat("[", 512) + "0" + strings.Repeat("]", 512)
	if _, err := ParseJSON([]byte(at), ParseOptions{}); err != nil {
		t.Fatalf("512 nested arrays: %v", err)
	}
	over := "[" + at + "]"
	if _, err := ParseJSON([]byte(over), ParseOptions{}); jtKind(t, err) != ParseDepth {
		t.Fatalf("513 nested arrays: %v, want ParseDepth", err)
	}
}

func TestParseJSONDigitBoundary(t *testing.T) {
	// SPEC §3.1: 4096 digits accepted, 4097 refused, the sign not counted.
	at := "-" + strings.Repeat("9", 4096)
	v, err := ParseJSON([]byte(at), ParseOptions{MaxIntDigits: 4096})
	if err != nil || v.Big == nil || v.Big.String() != at {
		t.Fatalf("4096 digits: %v, %v", v.Big, err)
	}
	_, err = ParseJSON([]byte(at+"9"), ParseOptions{MaxIntDigits: 4096})
	if jtKind(t, err) != ParseTooManyDigits {
		t.Fatalf("4097 digits: %v", err)
	}
}

func TestParseJSONManyKeysDuplicate(t *testing.T) {
	// Past dupScanLimit the map path must find a repeat of an early key.
	var b strings.Builder
	b.WriteString("{")
	for i := range 100 {
		b.WriteString(`"k` + string(rune('A'+i%26)) + string(rune('a'+i/26)) + `":1,`)
	}
	ok := b.String() + `"last":1}`
	if _, err := ParseJSON([]byte(ok), ParseOptions{}); err != nil {
		t.Fatalf("100 distinct keys: %v", err)
	}
	dup := b.String() + `"kBa":2}`
	if _, err := ParseJSON([]byte(dup), ParseOptions{}); jtKind(t, err) != ParseDuplicateKey {
		t.Fatalf("repeat of an early key: %v", err)
	}
}

func TestParseErrorOffsetAndMessage(t *testing.T) {
	_, err := ParseJSON([]byte(`{"k":"\ud800"}`), ParseOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Offset != 6 || pe.Kind != ParseLoneSurrogate {
		t.Fatalf("got %#v", err)
	}
	if got := pe.Error(); !strings.Contains(got, "lone-surrogate") || !strings.Contains(got, "byte 6") {
		t.Fatalf("Error() = %q", got)
	}
}

// jtEventJSON is a realistic ~1 KiB event body for the benchmarks.
const jtEventJSON = `{"actor":"agent:planner","blob_ids":["blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008"],` +
	`"cost":0.0042,"duration_ms":1834,"input":{"messages":[{"content":"Summarise the failing test output and propose a fix.","role":"user"},` +
	`{"content":"The test fails because the fixture path is relative; résumé ☃ 😀.","role":"assistant"}],"model":"gpt-4o-mini","temperature":0.2},` +
	`"kind":"model","labels":{"attempt":"3","branch":"main","env":"ci","suite":"integration"},"metrics":{"latency_ms":1834.5,"score":0.875},` +
	`"output":{"finish_reason":"stop","text":"Use filepath.Join(t.TempDir(), \"fixture.json\") and\nre-run with -count=1.\tDone."},` +
	`"parent_ids":["event:sha256:49501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7","event:sha256:e5de70c30d002e683da10de56bc0afd83a9df2825413920a6575f5dfedd4c57d"],` +
	`"seq":42,"started_at":"2026-09-05T00:00:00.000123Z","status":"ok","tags":["llm","retry",null,true,false],` +
	`"usage":{"cached_input_tokens":0,"input_tokens":812,"output_tokens":143,"total_tokens":955}}`

func BenchmarkParseJSON(b *testing.B) {
	data := []byte(jtEventJSON)
	opt := ParseOptions{DemoteBigInts: true}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseJSON(data, opt); err != nil {
			b.Fatal(err)
		}
	}
}

// jtObj builds an object Value from members without going through a
// constructor, so these tests do not depend on its name.
func jtObj(ms ...Member) Value {
	if ms == nil {
		ms = []Member{}
	}
	return Value{Kind: KindObject, Object: ms}
}

// TestParseJSONConcurrent exercises the pooled scratch stacks from several
// goroutines, including failed parses that leave frames behind.
func TestParseJSONConcurrent(t *testing.T) {
	inputs := []string{jtEventJSON, `{"a":[1,2,{"b":"\u00e9"}]}`, `[1,2,{"a":1,"a":2}]`, `[[[["x"`}
	want := make([][]byte, len(inputs))
	for i, in := range inputs {
		if v, err := ParseJSON([]byte(in), ParseOptions{DemoteBigInts: true}); err == nil {
			want[i], _ = CanonV3(v)
		}
	}
	done := make(chan error)
	for g := range 4 {
		go func() {
			for n := range 200 {
				i := (g + n) % len(inputs)
				v, err := ParseJSON([]byte(inputs[i]), ParseOptions{DemoteBigInts: true})
				ok := err == nil
				got, _ := CanonV3(v)
				if ok != (want[i] != nil) || (ok && string(got) != string(want[i])) {
					done <- errors.New("concurrent parse of " + inputs[i] + " gave " + string(got))
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
