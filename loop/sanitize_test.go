package loop

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

type node struct {
	Name string
	Next *node
	skip int
	Tag  string `json:"tag"`
	Hide string `json:"-"`
}

func TestSanitizeCounts(t *testing.T) {
	cyc := map[string]any{"a": 1}
	cyc["self"] = cyc
	loop := &node{Name: "n"}
	loop.Next = loop
	arr := make([]objects.Value, 1)
	arr[0] = objects.Value{Kind: objects.KindArray, Array: arr} // aliasing cycle
	in := map[any]any{
		"nan":  math.NaN(),
		"inf":  []any{math.Inf(1), math.Inf(-1)},
		"cyc":  cyc,
		"list": loop,
		"val":  objects.Value{Kind: objects.KindArray, Array: arr},
		1:      "int key",
		"1":    "string key",
		"big":  uint64(1) << 60,
		"bad":  "a\xffb",
		"fn":   func() {},
	}
	v, n := Sanitize(in)
	want := SanitizeCounts{NonFinite: 3, Cycles: 3, Keys: 2, Range: 1, Text: 1, Repr: 1}
	if n != want {
		t.Errorf("counts %+v, want %+v", n, want)
	}
	b, err := objects.CanonV3(v)
	if err != nil {
		t.Fatalf("sanitized value not encodable: %v", err)
	}
	for _, frag := range []string{`"1":"string key"`, `"1#2":"int key"`, `"nan":"NaN"`, `["Infinity","-Infinity"]`,
		`"self":"<tine: circular reference>"`, `"big":"1152921504606846976"`, "a\uFFFDb", `"tag":""`, `"fn":"<func()>"`} {
		if !strings.Contains(string(b), frag) {
			t.Errorf("missing %s in %s", frag, b)
		}
	}
	if strings.Contains(string(b), "Hide") || strings.Contains(string(b), "skip") {
		t.Errorf("unexported or json:\"-\" field leaked: %s", b)
	}
}

func TestSanitizeDepth(t *testing.T) {
	deep := func(n int) any {
		var v any = "leaf"
		for range n {
			v = []any{v}
		}
		return v
	}
	if _, n := Sanitize(deep(MaxPayloadDepth)); n.Total() != 0 {
		t.Errorf("64 levels counted %+v", n)
	}
	v, n := Sanitize(deep(MaxPayloadDepth + 1))
	if n.Depth != 1 {
		t.Errorf("65 levels: %+v", n)
	}
	b, _ := objects.CanonV3(v)
	if !strings.Contains(string(b), MarkerDepth) {
		t.Errorf("no depth marker")
	}
}

func TestSnapshotTruncatesButDigestsWhole(t *testing.T) {
	big := func(c string) objects.Value {
		return obj("blob", strings.Repeat(c, MaxStoredState), "k", 1)
	}
	a, _ := SnapshotState(objects.SHA256, big("a"))
	b, _ := SnapshotState(objects.SHA256, big("b"))
	if !a.Truncated || len(a.Stored) > 4096 || a.Size <= MaxStoredState {
		t.Fatalf("truncated=%v stored=%d size=%d", a.Truncated, len(a.Stored), a.Size)
	}
	if a.Digest == b.Digest {
		t.Errorf("different states, same digest")
	}
	if !strings.Contains(string(a.Stored), a.Digest.String()) || !strings.Contains(string(a.Stored), `"keys":["blob","k"]`) {
		t.Errorf("marker %s", a.Stored)
	}
	small, _ := SnapshotState(objects.SHA256, obj("x", 1))
	if small.Truncated || small.Digest != objects.NewBlob(objects.SHA256, small.Stored).ID {
		t.Errorf("small state: digest is not its blob oid")
	}
}

func TestStrictRefusesAndLaxCounts(t *testing.T) {
	step := func(context.Context, StepInput) (StepResult, error) {
		return StepResult{Score: 1, Stop: true, Metadata: map[string]any{"bad": math.Inf(1)}}, nil
	}
	nan := objects.ObjectValue(objects.Member{Key: "x", Value: objects.Float(math.NaN())})
	res, tr := runTraced(t, Config{Initial: nan, Step: step})
	if res.Sanitized != 3 || tr.iters[0].Sanitized != 2 || tr.start.Sanitized != 1 {
		t.Errorf("sanitized %d (iteration %d, start %d)", res.Sanitized, tr.iters[0].Sanitized, tr.start.Sanitized)
	}
	if got, _ := tr.iters[0].Metadata.Get("bad"); got.Str != "Infinity" {
		t.Errorf("metadata %+v", got)
	}
	_, err := Run(context.Background(), Config{Initial: obj("x", 1), Step: step, Recorder: &traceRecorder{},
		Now: fixedClock(0), Strict: true})
	if !errors.Is(err, ErrUnrecordable) || !strings.Contains(err.Error(), "1 non-finite") {
		t.Errorf("strict: %v", err)
	}
}

func TestFormatFloatPythonRepr(t *testing.T) {
	for f, want := range map[float64]string{
		0.2: "0.2", 1: "1.0", math.Copysign(0, -1): "-0.0", 1e-05: "1e-05", 1e16: "1e+16", 1.5e16: "1.5e+16",
		0.0001: "0.0001", 123456789012345.6: "123456789012345.6", -0.08999999999999997: "-0.08999999999999997",
		math.Inf(-1): "-inf", 1e22: "1e+22", 2.5e-300: "2.5e-300",
	} {
		if got := formatFloat(f); got != want {
			t.Errorf("formatFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestDiff(t *testing.T) {
	d := Diff(obj("a", 1, "b", 2), obj("b", 3, "c", 4))
	if strings.Join(d.Added, ",") != "c" || strings.Join(d.Removed, ",") != "a" || strings.Join(d.Changed, ",") != "b" || d.Replaced {
		t.Errorf("%+v", d)
	}
	if !Diff(objects.Int(1), objects.Float(1)).Replaced || Diff(objects.Int(1), objects.Int(1)).Replaced {
		t.Errorf("scalar diff wrong")
	}
}
