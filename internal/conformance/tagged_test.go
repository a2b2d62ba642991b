package conformance

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

func TestDecodeTagged(t *testing.T) {
	big := objects.Value{}
	if v, err := DecodeTagged([]byte(`{"$i":"-123456789012345678901234567890"}`)); err != nil {
		t.Fatal(err)
	} else {
		big = v
	}
	if big.Kind != objects.KindInt || big.Big == nil || big.Big.String() != "-123456789012345678901234567890" {
		t.Errorf("$i big = %+v", big)
	}
	cases := []struct {
		in   string
		want objects.Value
	}{
		{`{"$i":"7"}`, objects.Int(7)},
		{`{"$f":"1.0"}`, objects.Float(1)},
		{`{"$f":"-0.0"}`, objects.Float(math.Copysign(0, -1))},
		{`{"$f":"1e+20"}`, objects.Float(1e20)},
		{`{"$f":"inf"}`, objects.Float(math.Inf(1))},
		{`{"$f":"-inf"}`, objects.Float(math.Inf(-1))},
		{`{"$f":"1e400"}`, objects.Float(math.Inf(1))},
		{`{"$u":["0041","d83d","de00"]}`, objects.String("A\U0001F600")},
		{`{"$u":["d800"]}`, objects.String("\xed\xa0\x80")},
		{`{"$u":["dfff","0041"]}`, objects.String("\xed\xbf\xbfA")},
		{`"plain"`, objects.String("plain")},
		{`[true,null,{"$i":"0"}]`, objects.Array(objects.Bool(true), objects.Null(), objects.Int(0))},
		// Tags are recognised only as the sole key of an object.
		{`{"$i":"1","b":"x"}`, objectValue([]objects.Member{{Key: "$i", Value: objects.String("1")}, {Key: "b", Value: objects.String("x")}})},
		{`{"$obj":{"$i":"x"}}`, objectValue([]objects.Member{{Key: "$i", Value: objects.String("x")}})},
		{`{"$obj":[[{"$u":["d800"]},{"$i":"1"}],["a",{"$i":"2"}]]}`, objectValue([]objects.Member{
			{Key: "\xed\xa0\x80", Value: objects.Int(1)}, {Key: "a", Value: objects.Int(2)}})},
		{`{"$obj":{}}`, objectValue(nil)},
		{`{}`, objectValue(nil)},
	}
	for _, c := range cases {
		got, err := DecodeTagged([]byte(c.in))
		if err != nil {
			t.Errorf("DecodeTagged(%s): %v", c.in, err)
			continue
		}
		if !objects.Equal(got, c.want) || (c.want.Kind == objects.KindFloat && math.Signbit(got.Float) != math.Signbit(c.want.Float)) {
			t.Errorf("DecodeTagged(%s) = %+v, want %+v", c.in, got, c.want)
		}
	}
	nan, err := DecodeTagged([]byte(`{"$f":"nan"}`))
	if err != nil || nan.Kind != objects.KindFloat || !math.IsNaN(nan.Float) {
		t.Errorf("$f nan = %+v, %v", nan, err)
	}
}

func TestDecodeTaggedRefuses(t *testing.T) {
	for _, in := range []string{
		`1`, `[2.5]`, // bare numbers have no defined type
		`{"$i":"1.5"}`, `{"$i":7}`, `{"$i":"+1"}`, `{"$i":""}`,
		`{"$f":"0x1p3"}`, `{"$f":"Infinity"}`, `{"$f":"1_0"}`, `{"$f":1}`,
		`{"$u":["D800"]}`, `{"$u":["d80"]}`, `{"$u":"d800"}`,
		`{"$obj":[["a"]]}`, `{"$obj":[[{"$i":"1"},"x"]]}`, `{"$obj":"x"}`,
		`{"$obj":[["a",null],["a",null]]}`, `{"a":1,"a":2}`,
		`{"a":"x"} trailing`, `[`,
	} {
		if v, err := DecodeTagged([]byte(in)); err == nil {
			t.Errorf("DecodeTagged(%s) = %+v, want an error", in, v)
		}
	}
	deep := strings.Repeat("[", maxTreeDepth+1) + strings.Repeat("]", maxTreeDepth+1)
	if _, err := DecodeTagged([]byte(deep)); !errors.Is(err, errTreeDepth) {
		t.Errorf("deep value: %v, want errTreeDepth", err)
	}
}

func TestDecodePlainNumbers(t *testing.T) {
	v, err := DecodePlain([]byte(`{"n":1,"f":1.0,"e":1e2,"b":99999999999999999999}`))
	if err != nil {
		t.Fatal(err)
	}
	for key, kind := range map[string]objects.Kind{"n": objects.KindInt, "f": objects.KindFloat, "e": objects.KindFloat, "b": objects.KindInt} {
		if got, _ := v.Get(key); got.Kind != kind {
			t.Errorf("%s: kind %s, want %s", key, got.Kind, kind)
		}
	}
}

func TestCompare(t *testing.T) {
	a, _ := DecodePlain([]byte(`{"links":["b","a","a"],"oid":"x"}`))
	b, _ := DecodePlain([]byte(`{"oid":"x","links":["a","b","a"]}`))
	if objects.Equal(a, b) {
		t.Error("arrays compared unordered without being named")
	}
	if !objects.Equal(normalize(a, []string{"links"}), normalize(b, []string{"links"})) {
		t.Error("unordered links compare unequal")
	}
	c, _ := DecodePlain([]byte(`{"oid":"x","links":["a","b"]}`))
	if objects.Equal(normalize(a, []string{"links"}), normalize(c, []string{"links"})) {
		t.Error("a multiset lost its duplicate")
	}
	forbidden, _ := DecodePlain([]byte(`{"oid":"x"}`))
	if !subsetMatches(a, forbidden, nil) {
		t.Error("forbidden subset not matched")
	}
	empty, _ := DecodePlain([]byte(`{}`))
	if subsetMatches(a, empty, nil) {
		t.Error("an empty forbidden object matched")
	}
	groups := [][]string{{"x.a", "x.b"}, {"y.a", "y.b"}}
	if !reasonOK("x.b", Case{Reason: "x.a"}, groups) || reasonOK("y.a", Case{Reason: "x.a"}, groups) {
		t.Error("alias group closure wrong")
	}
	if !reasonOK("y.b", Case{ReasonAny: []string{"q", "y.a"}}, groups) || reasonOK("", Case{Reason: "q"}, groups) {
		t.Error("reason_any closure wrong")
	}
}
