package runs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// otlpDoc wraps spans (JSON objects) in one export document.
func otlpDoc(spans ...string) []byte {
	return []byte(`{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"scope":{"name":"t"},"spans":[` + strings.Join(spans, ",") + `]}]}]}`)
}

// otlpSpanJSON is a span with hex ids; parent "" has none; attrs is the
// inside of its attributes list.
func otlpSpanJSON(span, parent string, start int, attrs string) string {
	p := ""
	if parent != "" {
		p = `,"parentSpanId":"` + parent + `"`
	}
	return fmt.Sprintf(`{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"%s"%s,"name":"s","startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[%s]}`,
		span, p, start, start+1000, attrs)
}

const (
	spanA = "aaaaaaaaaaaaaaa1"
	spanB = "bbbbbbbbbbbbbbb2"
	spanC = "ccccccccccccccc3"
)

// TestOTLPRefuses: every malformed export is refused with ErrBadOTLP and a
// message naming what is wrong.
func TestOTLPRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"duplicate span", otlpDoc(otlpSpanJSON(spanA, "", 1, ""), otlpSpanJSON(spanA, "", 2, "")), "appears twice"},
		{"cycle", otlpDoc(otlpSpanJSON(spanA, spanB, 1, ""), otlpSpanJSON(spanB, spanA, 2, ""), otlpSpanJSON(spanC, "", 3, "")), "cycle through 2 span(s): " + spanA + ", " + spanB},
		{"self parent", otlpDoc(otlpSpanJSON(spanA, spanA, 1, "")), "cycle through 1 span(s)"},
		{"short id", otlpDoc(otlpSpanJSON("abc", "", 1, "")), `spanId "abc": want 16 hex digits or 12 base64 characters`},
		{"bad hex", otlpDoc(otlpSpanJSON("zzzzzzzzzzzzzzzz", "", 1, "")), "spanId"},
		{"zero id", otlpDoc(otlpSpanJSON("0000000000000000", "", 1, "")), "spanId is all zero"},
		{"no spans", otlpDoc(), "no spans"},
		{"not JSON", []byte(`{"resourceSpans":[`), "bad OTLP"},
		{"duplicate key", []byte(`{"resourceSpans":[],"resourceSpans":[]}`), "bad OTLP"},
		{"NaN double", otlpDoc(otlpSpanJSON(spanA, "", 1, `{"key":"x","value":{"doubleValue":"NaN"}}`)), "not a finite number"},
		{"intValue text", otlpDoc(otlpSpanJSON(spanA, "", 1, `{"key":"x","value":{"intValue":"12a"}}`)), `"12a" is not a 64-bit decimal integer`},
		{"attribute twice", otlpDoc(otlpSpanJSON(spanA, "", 1, `{"key":"x","value":{"intValue":1}},{"key":"x","value":{"intValue":2}}`)), `attribute "x" is given twice`},
		{"two members", otlpDoc(otlpSpanJSON(spanA, "", 1, `{"key":"x","value":{"intValue":1,"stringValue":"a"}}`)), "exactly one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans, err := parseOTLP(tc.data)
			if err == nil {
				_, _, err = otlpOrder(spans)
			}
			if !errors.Is(err, ErrBadOTLP) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestOTLPBounds: an export over the byte or token bound is refused
// before it is parsed.
func TestOTLPBounds(t *testing.T) {
	if _, err := parseOTLP(make([]byte, MaxOTLPBytes+1)); !errors.Is(err, ErrBadOTLP) || !strings.Contains(err.Error(), "more than") {
		t.Fatalf("oversized: %v", err)
	}
	many := []byte(`{"resourceSpans":[` + strings.Repeat(`1,`, MaxOTLPTokens) + `1]}`)
	if len(many) > MaxOTLPBytes {
		t.Fatalf("test input %d bytes is over the byte bound", len(many))
	}
	if _, err := parseOTLP(many); !errors.Is(err, ErrBadOTLP) || !strings.Contains(err.Error(), "token") {
		t.Fatalf("too many tokens: %v", err)
	}
	var spans []string
	for i := 0; i <= MaxImportEvents; i++ {
		spans = append(spans, otlpSpanJSON(fmt.Sprintf("%016x", i+1), "", i, ""))
	}
	if _, err := parseOTLP(otlpDoc(spans...)); !errors.Is(err, ErrBadOTLP) || !strings.Contains(err.Error(), "more than 10000 spans") {
		t.Fatalf("too many spans: %v", err)
	}
}

// TestOTLPIDsAndInts: hex and base64 ids read alike; intValue as a string
// or a number; a huge intValue is kept as its decimal string; timestamps
// given as JSON numbers.
func TestOTLPIDsAndInts(t *testing.T) {
	b64 := `{"traceId":"W47/95gDgQPSabYzgT/GDA==","spanId":"7uGbfsPBsXQ=","startTimeUnixNano":1767225600000000000,"attributes":[` +
		`{"key":"a","value":{"intValue":"812"}},{"key":"b","value":{"intValue":64}},{"key":"c","value":{"intValue":"9223372036854775807"}}]}`
	spans, err := parseOTLP(otlpDoc(b64))
	if err != nil {
		t.Fatal(err)
	}
	sp := spans[0]
	if sp.trace != "5b8efff798038103d269b633813fc60c" || sp.id != "eee19b7ec3c1b174" {
		t.Fatalf("ids = %s %s", sp.trace, sp.id)
	}
	if sp.start != 1767225600000000000 {
		t.Fatalf("start = %d", sp.start)
	}
	got := objects.ObjectValue(sp.attrs...)
	want := objects.ObjectValue(
		objects.Member{Key: "a", Value: objects.Int(812)},
		objects.Member{Key: "b", Value: objects.Int(64)},
		objects.Member{Key: "c", Value: objects.String("9223372036854775807")})
	if !objects.Equal(got, want) {
		t.Fatalf("attrs = %+v", got)
	}
}

// TestOTLPOrder: parents come first whatever the start times say (a child
// started "before" its parent by clock skew), then start time orders.
func TestOTLPOrder(t *testing.T) {
	spans, err := parseOTLP(otlpDoc(
		otlpSpanJSON(spanC, spanA, 5, ""),
		otlpSpanJSON(spanB, spanA, 1, ""), // skewed: starts before its parent
		otlpSpanJSON(spanA, "", 3, ""),
	))
	if err != nil {
		t.Fatal(err)
	}
	ordered, _, err := otlpOrder(spans)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, sp := range ordered {
		ids = append(ids, sp.id)
	}
	if strings.Join(ids, " ") != spanA+" "+spanB+" "+spanC {
		t.Fatalf("order = %v", ids)
	}
}

// TestImportOTLPAllOrNothing: a span that cannot become an event (a token
// count that is not an integer) refuses the whole export: no object of it
// is written and the ref does not move.
func TestImportOTLPAllOrNothing(t *testing.T) {
	r := initRepo(t)
	ctx := context.Background()
	data := otlpDoc(
		otlpSpanJSON(spanA, "", 1, `{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}`),
		otlpSpanJSON(spanB, spanA, 2, `{"key":"gen_ai.usage.input_tokens","value":{"doubleValue":1.5}}`),
	)
	_, err := ImportOTLP(ctx, r, OTLPImportOptions{Ref: "heads/t", Data: data})
	if !errors.Is(err, ErrBadOTLP) || !strings.Contains(err.Error(), "span "+spanB) || !strings.Contains(err.Error(), "non-negative integer token count") {
		t.Fatalf("err = %v", err)
	}
	if _, err := r.Refs().Read(ctx, "heads/t"); !errors.Is(err, refs.ErrNotFound) {
		t.Fatalf("ref after a refused import: %v", err)
	}
	n := 0
	if err := r.Objects().List(ctx, func(objects.OID) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d objects written by a refused import", n)
	}
}

// TestImportOTLPFixtures imports the fixture set and checks what each
// convention becomes.
func TestImportOTLPFixtures(t *testing.T) {
	r := initRepo(t)
	ctx := context.Background()
	load := func(name, ref string) (*OTLPImportResult, *Run) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "otlp", name))
		if err != nil {
			t.Fatal(err)
		}
		res, err := ImportOTLP(ctx, r, OTLPImportOptions{Ref: ref, Data: data})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		run, _, err := ResolveRun(ctx, r, ref)
		if err != nil {
			t.Fatal(err)
		}
		if err := LoadEvents(ctx, r.Objects(), run, nil); err != nil {
			t.Fatal(err)
		}
		return res, run
	}
	text := func(id objects.OID) string {
		o, err := r.Objects().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return string(o.Body)
	}
	_, cur := load("genai_current.json", "heads/current")
	kinds := []string{}
	for _, e := range cur.Events {
		kinds = append(kinds, e.Kind+":"+e.Label())
	}
	if got := strings.Join(kinds, " "); got != "subagent:subagent model:gpt-4.1-2025-04-14 tool:lookup_order model:gpt-4.1-2025-04-14" {
		t.Fatalf("current: %s", got)
	}
	chat := cur.Events[1]
	want := map[string]float64{"input": 812, "output": 64, "cache_read": 512, "cache_write_5m": 128, "reasoning": 20}
	for k, v := range want {
		if chat.Usage[k] != v {
			t.Errorf("usage.%s = %v, want %v", k, chat.Usage[k], v)
		}
	}
	if !strings.Contains(text(chat.InputBlob), "Where is order 1042?") || len(chat.Parents) != 1 || chat.Parents[0] != cur.Events[0].ID {
		t.Fatalf("chat: input %q parents %v", text(chat.InputBlob), chat.Parents)
	}
	tool := cur.Events[2]
	if id, _ := tool.Value.Get("tool_call_id"); id.Str != "call_7" || text(tool.InputBlob) != `{"id":1042}` || !strings.Contains(text(tool.OutputBlob), "shipped") {
		t.Fatalf("tool: %s", tool.Object.Body)
	}

	// Base64 ids and one document per line give the very same events.
	_, b64 := load("genai_base64_ids.json", "heads/b64")
	if fmt.Sprint(b64.EventIDs()) != fmt.Sprint(cur.EventIDs()) {
		t.Fatalf("base64 events %v, hex events %v", b64.EventIDs(), cur.EventIDs())
	}

	_, leg := load("genai_legacy.json", "heads/legacy")
	lchat := leg.Events[1]
	if lchat.Usage["input"] != 812 || lchat.Usage["output"] != 64 || text(lchat.InputBlob) != "Where is order 1042?" || text(lchat.OutputBlob) != "call lookup_order(1042)" {
		t.Fatalf("legacy chat: %s", lchat.Object.Body)
	}
	if p, _ := lchat.Value.Get("provider"); p.Str != "openai" || leg.Events[2].Kind != "tool" {
		t.Fatalf("legacy: provider %q, kind %q", p.Str, leg.Events[2].Kind)
	}

	_, oi := load("openinference.json", "heads/oi")
	var labels []string
	for _, e := range oi.Events {
		labels = append(labels, e.Kind+":"+e.Label()+":"+e.Error)
	}
	if got := strings.Join(labels, " "); got != "subagent:subagent: model:claude-sonnet-4-5: tool:calculator:calculator: malformed expression chain:chain:" {
		t.Fatalf("openinference: %s", got)
	}
	if llm := oi.Events[1]; llm.Usage["total"] != 1285 || llm.Usage["cache_read"] != 1024 || text(llm.OutputBlob) != "I will compute it with the barometric formula." {
		t.Fatalf("openinference llm: %s", llm.Object.Body)
	}

	// A partial trace onto a new run: the missing parent and link are
	// reported and kept; onto the run holding the parent it links to it.
	res, part := load("partial.json", "heads/partial")
	if len(res.Unresolved) != 2 || res.Unresolved[0].Ref != "eee19b7ec3c1b174" || res.Unresolved[0].Kind != "parent" || res.Unresolved[1].Kind != "link" {
		t.Fatalf("unresolved = %+v", res.Unresolved)
	}
	if u, _ := part.Events[0].Value.Get("unresolved_span_refs"); len(u.Array) != 1 || len(part.Events[0].Parents) != 0 {
		t.Fatalf("partial root: %s", part.Events[0].Object.Body)
	}
	res, cont := load("partial.json", "heads/current")
	if len(res.Unresolved) != 1 || res.Unresolved[0].Kind != "link" {
		t.Fatalf("continued: unresolved = %+v", res.Unresolved)
	}
	if e := cont.Events[4]; len(e.Parents) != 1 || e.Parents[0] != cur.Events[0].ID {
		t.Fatalf("continued span parents %v, want the agent span %s", e.Parents, cur.Events[0].ID)
	}
}

// FuzzParseOTLP: no export makes the reader or the ordering panic, and
// what they accept orders every span exactly once.
func FuzzParseOTLP(f *testing.F) {
	f.Add(otlpDoc(otlpSpanJSON(spanA, "", 1, `{"key":"k","value":{"arrayValue":{"values":[{"intValue":"1"}]}}}`)))
	f.Add(otlpDoc(otlpSpanJSON(spanA, spanB, 1, ""), otlpSpanJSON(spanB, spanA, 2, "")))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"W47/95gDgQPSabYzgT/GDA==","spanId":"7uGbfsPBsXQ="}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		spans, err := parseOTLP(data)
		if err != nil {
			return
		}
		ordered, _, err := otlpOrder(spans)
		if err == nil && len(ordered) != len(spans) {
			t.Fatalf("%d spans ordered of %d", len(ordered), len(spans))
		}
	})
}

// TestOTLPStructuredContent: messages given as structured attribute values
// become canonical JSON text, and the event-based GenAI messages (span
// events) are the input and output when no attribute holds them.
func TestOTLPStructuredContent(t *testing.T) {
	structured := otlpSpanJSON(spanA, "", 1, `{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},`+
		`{"key":"gen_ai.input.messages","value":{"arrayValue":{"values":[{"kvlistValue":{"values":[{"key":"role","value":{"stringValue":"user"}}]}}]}}}`)
	events := strings.TrimSuffix(otlpSpanJSON(spanB, "", 2, `{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}}`), "}") +
		`,"events":[{"name":"gen_ai.user.message","attributes":[{"key":"content","value":{"stringValue":"hi"}}]},` +
		`{"name":"gen_ai.choice","attributes":[{"key":"index","value":{"intValue":"0"}}]}]}`
	spans, err := parseOTLP(otlpDoc(structured, events))
	if err != nil {
		t.Fatal(err)
	}
	in := func(sp *otlpSpan, key string) string {
		t.Helper()
		v, err := otlpSpec(sp, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := v.Get(key)
		return s.Str
	}
	if got := in(spans[0], "input"); got != `[{"role":"user"}]` {
		t.Errorf("structured input = %q", got)
	}
	if got := in(spans[1], "input"); got != `[{"attributes":{"content":"hi"},"event":"gen_ai.user.message"}]` {
		t.Errorf("event input = %q", got)
	}
	if got := in(spans[1], "output"); got != `[{"attributes":{"index":0},"event":"gen_ai.choice"}]` {
		t.Errorf("event output = %q", got)
	}
}
