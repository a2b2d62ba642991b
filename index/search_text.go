package index

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
)

// Search fields: which part of an event a term was found in. A posting
// holds a bit set of them.
const (
	// FieldInput is what went into the event: its input_blob, the input
	// and inputs members, and a recorded command's argv and cwd.
	FieldInput byte = 1 << iota
	// FieldOutput is what came out: output_blob, artifact_blob (a
	// recorded command's stderr), and the output, outputs and error
	// members.
	FieldOutput
	// FieldMeta is every other string of the payload (kind, tool, model,
	// attributes, params ...), link members excepted.
	FieldMeta
	// FieldAll is every field.
	FieldAll = FieldInput | FieldOutput | FieldMeta
)

// Tokenization bounds (documented in the README's tine search section).
const (
	// MaxBlobPrefix is how much of each blob an event links is indexed
	// and searched: the first 64 KiB.
	MaxBlobPrefix = 64 << 10
	// MinTokenBytes and MaxTokenBytes bound an indexed term; shorter and
	// longer runs of letters and digits are not terms.
	MinTokenBytes = 2
	MaxTokenBytes = 64
	// MaxEventTerms bounds the distinct terms indexed per event.
	MaxEventTerms = 8192
)

// Tokenize splits text into search terms: maximal runs of Unicode letters
// and digits, lower-cased, of MinTokenBytes..MaxTokenBytes bytes. Invalid
// UTF-8 separates terms. A query is tokenized the same way.
func Tokenize(text string, fn func(term string)) {
	start := -1
	flush := func(end int) {
		if start >= 0 {
			if t := strings.ToLower(text[start:end]); len(t) >= MinTokenBytes && len(t) <= MaxTokenBytes {
				fn(t)
			}
		}
		start = -1
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		word := r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if word && start < 0 {
			start = i
		} else if !word {
			flush(i)
		}
		i += n
	}
	flush(len(text))
}

// Terms returns the distinct terms of text in first-seen order.
func Terms(text string) []string {
	seen := map[string]bool{}
	var out []string
	Tokenize(text, func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}

// EventText is the searchable text of one event, by field.
type EventText struct {
	Input, Output, Meta []string
}

// Field returns the texts of the fields in mask.
func (t *EventText) Field(mask byte) []string {
	var out []string
	if mask&FieldInput != 0 {
		out = append(out, t.Input...)
	}
	if mask&FieldOutput != 0 {
		out = append(out, t.Output...)
	}
	if mask&FieldMeta != 0 {
		out = append(out, t.Meta...)
	}
	return out
}

// ReadEventText reads event o's searchable text: its payload's strings
// and the first MaxBlobPrefix bytes of each blob it links, each read
// through g (which re-verifies it). A blob that is not stored (shallow,
// pruned) contributes nothing.
func ReadEventText(ctx context.Context, g objects.Getter, o *objects.Object) (*EventText, error) {
	t := &EventText{}
	walkPayload(o.Value, t)
	for _, link := range []struct {
		key string
		dst *[]string
	}{{"input_blob", &t.Input}, {"output_blob", &t.Output}, {"artifact_blob", &t.Output}} {
		v, ok := o.Value.Get(link.key)
		if !ok || v.Kind != objects.KindString {
			continue
		}
		id, err := objects.ParseOIDFor(o.ID.Algo, v.Str)
		if err != nil || id.Type != objects.TypeBlob {
			continue
		}
		b, err := g.Get(ctx, id)
		if errors.Is(err, objects.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("event %s: %s: %w", o.ID, link.key, err)
		}
		body := b.Body
		if len(body) > MaxBlobPrefix {
			body = body[:MaxBlobPrefix]
		}
		*link.dst = append(*link.dst, string(body))
	}
	return t, nil
}

// inputKeys and outputKeys are the payload members (top level or in
// attributes) whose strings are an event's input or output.
var (
	inputKeys  = map[string]bool{"input": true, "inputs": true, "argv": true, "cwd": true}
	outputKeys = map[string]bool{"output": true, "outputs": true, "error": true}
)

// walkPayload files every string of the payload under its field; the link
// members (oids) are not text.
func walkPayload(v objects.Value, t *EventText) {
	for _, m := range v.Object {
		switch {
		case m.Key == "parent_ids" || m.Key == "causal_ids" || strings.HasSuffix(m.Key, "_blob"):
		case inputKeys[m.Key]:
			collectStrings(m.Value, &t.Input)
		case outputKeys[m.Key]:
			collectStrings(m.Value, &t.Output)
		case m.Key == "attributes" && m.Value.Kind == objects.KindObject:
			walkPayload(m.Value, t)
		default:
			collectStrings(m.Value, &t.Meta)
		}
	}
}

// collectStrings appends every string inside v (depth-first).
func collectStrings(v objects.Value, dst *[]string) {
	switch v.Kind {
	case objects.KindString:
		*dst = append(*dst, v.Str)
	case objects.KindArray:
		for _, e := range v.Array {
			collectStrings(e, dst)
		}
	case objects.KindObject:
		for _, m := range v.Object {
			collectStrings(m.Value, dst)
		}
	}
}

// eventTerms returns the distinct terms of t with their field bits,
// bounded by MaxEventTerms.
func eventTerms(t *EventText) map[string]byte {
	out := map[string]byte{}
	for _, f := range []struct {
		bit   byte
		texts []string
	}{{FieldInput, t.Input}, {FieldOutput, t.Output}, {FieldMeta, t.Meta}} {
		for _, s := range f.texts {
			Tokenize(s, func(term string) {
				if _, ok := out[term]; ok || len(out) < MaxEventTerms {
					out[term] |= f.bit
				}
			})
		}
	}
	return out
}
