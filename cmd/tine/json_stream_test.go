package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// ptrMarshaler encodes itself through a method on its pointer, which
// encoding/json calls only where the value is addressable.
type ptrMarshaler struct{ n int }

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf(`{"by":"ptr","n":%d}`, p.n)), nil
}

type streamInner struct {
	Zeta  float64 `json:"zeta"`
	Alpha string  `json:"alpha,omitempty"`
	List  []int   `json:"list"`
}

type StreamEmbedded struct {
	Promoted string   `json:"promoted"`
	Items    []string `json:"items,omitempty"`
}

type streamResult struct {
	*StreamEmbedded
	Name     string          `json:"name"`
	Big      uint64          `json:"big"`
	Float    float64         `json:"float"`
	HTML     string          `json:"html"`
	Bad      string          `json:"bad_utf8"`
	Sep      string          `json:"separators"`
	Nil      []streamInner   `json:"nil_list"`
	Empty    []streamInner   `json:"empty_list"`
	Omitted  []streamInner   `json:"omitted,omitempty"`
	Inners   []streamInner   `json:"inners"`
	Ptrs     []*streamInner  `json:"ptrs"`
	Bytes    []byte          `json:"bytes"`
	Raw      json.RawMessage `json:"raw,omitempty"`
	Map      map[string]any  `json:"map"`
	Marsh    []ptrMarshaler  `json:"marshalers"`
	Time     time.Time       `json:"time"`
	Iface    any             `json:"iface"`
	Untagged int
	skipped  int
	Dash     int               `json:"-"`
	Opt      *streamInner      `json:"opt,omitempty"`
	Strs     map[string]string `json:"strs,omitempty"`
}

// TestStreamJSONMatchesWhole checks that the streamed encoding of a result
// is byte for byte what writeJSONWhole prints, across the shapes results
// take: embedded structs, omitempty, nil and empty lists, HTML
// characters, invalid UTF-8, U+2028, exact numbers, raw JSON, methods on
// pointers.
func TestStreamJSONMatchesWhole(t *testing.T) {
	full := streamResult{
		StreamEmbedded: &StreamEmbedded{Promoted: "p", Items: []string{"a", "<b>"}},
		Name:           "x", Big: 1<<63 + 1, Float: 1e21, HTML: "<a&b>", Bad: "a\xffb", Sep: "l\u2028p\u2029",
		Empty:  []streamInner{},
		Inners: []streamInner{{Zeta: 0.1, Alpha: "a", List: []int{1, 2}}, {Zeta: -3e-9}, {List: []int{}}},
		Ptrs:   []*streamInner{nil, {Alpha: "\"q\"\n"}},
		Bytes:  []byte("bytes"), Raw: json.RawMessage(` { "z" : 1, "a" : [ 1.50, "x" ] } `),
		Map:   map[string]any{"b": 1, "a": []any{map[string]any{"y": 2, "x": nil}}},
		Marsh: []ptrMarshaler{{1}, {2}}, Time: time.Unix(1700000000, 5).UTC(), Iface: []int{3},
		Untagged: 7, skipped: 1, Dash: 2, Opt: &streamInner{}, Strs: map[string]string{"k": "v"},
	}
	cases := map[string]any{
		"full":          full,
		"full pointer":  &full,
		"zero":          streamResult{},
		"zero pointer":  &streamResult{},
		"nil pointer":   (*streamResult)(nil),
		"anonymous":     struct{ A []int }{A: []int{1, 2, 3}},
		"list of lists": struct{ L [][]string }{L: [][]string{{"a"}, {}, nil}},
	}
	for name, v := range cases {
		var streamed, whole bytes.Buffer
		if err := writeJSON(&streamed, "verb", v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := writeJSONWhole(&whole, "verb", v); err != nil {
			t.Fatalf("%s: whole: %v", name, err)
		}
		if streamed.String() != whole.String() {
			t.Fatalf("%s: streamed\n%s\nwhole\n%s", name, streamed.String(), whole.String())
		}
	}
	if ok, _ := streamJSON(&bytes.Buffer{}, "verb", &full); !ok {
		t.Fatal("the full result was not streamed")
	}
}

// TestStreamJSONRefusesCommandField checks the clash with the verb's own
// field is refused before anything is written.
func TestStreamJSONRefusesCommandField(t *testing.T) {
	var buf bytes.Buffer
	err := writeJSON(&buf, "v", struct {
		Command string `json:"command"`
		L       []int  `json:"l"`
	}{L: []int{1}})
	if err == nil || !strings.Contains(err.Error(), `"command" field`) || buf.Len() != 0 {
		t.Fatalf("err %v, wrote %q", err, buf.String())
	}
}

// countingWriter counts the bytes written to it.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// probe is a list element that records, when encoded, how much of the
// output has already reached the writer.
type probe struct {
	w    *countingWriter
	seen *[]int
	Pad  string `json:"pad"`
}

func (p probe) MarshalJSON() ([]byte, error) {
	*p.seen = append(*p.seen, p.w.n)
	return json.Marshal(map[string]string{"pad": p.Pad})
}

// TestWriteJSONStreamsLists checks that a long list is written while it is
// encoded, not after: by the time its last element is encoded most of the
// output has been written, so what is held is about one element, not the
// whole listing (writeJSONWhole wrote nothing until every element was
// encoded).
func TestWriteJSONStreamsLists(t *testing.T) {
	w := &countingWriter{}
	var seen []int
	list := make([]probe, 2000)
	for i := range list {
		list[i] = probe{w: w, seen: &seen, Pad: strings.Repeat("x", 200)}
	}
	if err := writeJSON(w, "v", struct {
		Entries []probe `json:"entries"`
	}{list}); err != nil {
		t.Fatal(err)
	}
	last := seen[len(seen)-1]
	if last < w.n/2 {
		t.Fatalf("%d of %d bytes written when the last element was encoded", last, w.n)
	}
}
