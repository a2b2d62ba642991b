package runs

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
)

// OTLP/JSON trace exports (opentelemetry-proto's ExportTraceServiceRequest
// in its JSON mapping): {"resourceSpans":[{"resource":{"attributes":[...]},
// "scopeSpans":[{"scope":{"name":...},"spans":[SPAN...]}]}]}, one document,
// or one document per line as the collector's file exporter writes them.
// The older "instrumentationLibrarySpans" and "instrumentationLibrary"
// keys are read as scopeSpans and scope. Ids are hex (the OTLP/JSON rule)
// or base64 (protobuf's generic JSON mapping of bytes); integers may be
// JSON numbers or decimal strings (int64 and fixed64 are strings in the
// mapping).

// OTLP import bounds, checked before the document is parsed.
const (
	// MaxOTLPBytes bounds an OTLP/JSON file.
	MaxOTLPBytes = 32 << 20
	// MaxOTLPTokens bounds the JSON tokens of an OTLP/JSON file.
	MaxOTLPTokens = 2 << 20
	// maxOTLPIntDigits bounds an integer literal's digits.
	maxOTLPIntDigits = 32
)

// ErrBadOTLP means an OTLP/JSON export was refused; the error names the
// span or the field.
var ErrBadOTLP = errors.New("bad OTLP trace export")

// otlpSpan is one span as read from the export.
type otlpSpan struct {
	index             int // position in the file, for stable order
	trace, id, parent string
	name, kind        string
	start, end        int64 // Unix nanoseconds; 0 when absent
	attrs             []objects.Member
	events            []otlpEvent
	links             []otlpLink
	statusCode        string // "", "ok", "error"
	statusMessage     string
	scope, service    string
	hasStart, hasEnd  bool
}

// otlpEvent is a span event (a log inside the span).
type otlpEvent struct {
	name  string
	attrs []objects.Member
}

// otlpLink is a span link: a causal reference to another span.
type otlpLink struct{ trace, span string }

// parseOTLP reads every span of an export.
func parseOTLP(data []byte) ([]*otlpSpan, error) {
	if len(data) > MaxOTLPBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than %d", ErrBadOTLP, len(data), MaxOTLPBytes)
	}
	docs, err := otlpDocuments(data)
	if err != nil {
		return nil, err
	}
	var spans []*otlpSpan
	for _, doc := range docs {
		rs, err := otlpList(doc, "resourceSpans")
		if err != nil {
			return nil, err
		}
		for ri, r := range rs {
			res, _ := r.Get("resource")
			rattrs, err := otlpAttributes(res, fmt.Sprintf("resourceSpans[%d].resource", ri))
			if err != nil {
				return nil, err
			}
			service := attrString(rattrs, "service.name")
			ss, err := otlpList(r, "scopeSpans", "instrumentationLibrarySpans")
			if err != nil {
				return nil, err
			}
			for _, sc := range ss {
				scope := ""
				if s, ok := firstKey(sc, "scope", "instrumentationLibrary"); ok {
					scope = str(s, "name")
				}
				list, err := otlpList(sc, "spans")
				if err != nil {
					return nil, err
				}
				for _, sv := range list {
					if len(spans) >= MaxImportEvents {
						return nil, fmt.Errorf("%w: more than %d spans", ErrBadOTLP, MaxImportEvents)
					}
					sp, err := otlpReadSpan(sv, len(spans))
					if err != nil {
						return nil, err
					}
					sp.scope, sp.service = scope, service
					spans = append(spans, sp)
				}
			}
		}
	}
	if len(spans) == 0 {
		return nil, fmt.Errorf("%w: no spans", ErrBadOTLP)
	}
	return spans, nil
}

// otlpDocuments parses data as one JSON document or, failing that, as one
// document per non-blank line.
func otlpDocuments(data []byte) ([]objects.Value, error) {
	opt := objects.ParseOptions{MaxIntDigits: maxOTLPIntDigits}
	if err := objects.ScanShape(data, MaxOTLPTokens); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadOTLP, err)
	}
	v, err := objects.ParseJSON(data, opt)
	if err == nil {
		if v.Kind != objects.KindObject {
			return nil, fmt.Errorf("%w: the document is a JSON %s, not an object", ErrBadOTLP, v.Kind)
		}
		return []objects.Value{v}, nil
	}
	whole := err
	var docs []objects.Value
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		lv, lerr := objects.ParseJSON(line, opt)
		if lerr != nil || lv.Kind != objects.KindObject {
			if n == 0 {
				return nil, fmt.Errorf("%w: %w", ErrBadOTLP, whole)
			}
			if lerr == nil {
				lerr = fmt.Errorf("a JSON %s, not an object", lv.Kind)
			}
			return nil, fmt.Errorf("%w: line %d: %w", ErrBadOTLP, n+1, lerr)
		}
		docs = append(docs, lv)
	}
	return docs, nil
}

// otlpReadSpan reads one span object.
func otlpReadSpan(v objects.Value, index int) (*otlpSpan, error) {
	if v.Kind != objects.KindObject {
		return nil, fmt.Errorf("%w: span %d is a JSON %s, not an object", ErrBadOTLP, index, v.Kind)
	}
	sp := &otlpSpan{index: index, name: str(v, "name")}
	where := fmt.Sprintf("span %d", index)
	var err error
	if sp.trace, err = otlpID(v, "traceId", 16, where); err != nil {
		return nil, err
	}
	if sp.trace == "" {
		return nil, fmt.Errorf("%w: %s has no traceId", ErrBadOTLP, where)
	}
	if sp.id, err = otlpID(v, "spanId", 8, where); err != nil {
		return nil, err
	}
	if sp.id == "" {
		return nil, fmt.Errorf("%w: %s has no spanId", ErrBadOTLP, where)
	}
	where = "span " + sp.id
	if sp.parent, err = otlpID(v, "parentSpanId", 8, where); err != nil {
		return nil, err
	}
	if sp.start, sp.hasStart, err = otlpNanos(v, "startTimeUnixNano", where); err != nil {
		return nil, err
	}
	if sp.end, sp.hasEnd, err = otlpNanos(v, "endTimeUnixNano", where); err != nil {
		return nil, err
	}
	if sp.attrs, err = otlpAttributes(v, where); err != nil {
		return nil, err
	}
	sp.kind = otlpSpanKind(v)
	if st, ok := v.Get("status"); ok && st.Kind == objects.KindObject {
		sp.statusMessage = str(st, "message")
		switch c, _ := st.Get("code"); {
		case c.Kind == objects.KindInt && c.Int == 1, c.Kind == objects.KindString && c.Str == "STATUS_CODE_OK":
			sp.statusCode = "ok"
		case c.Kind == objects.KindInt && c.Int == 2, c.Kind == objects.KindString && c.Str == "STATUS_CODE_ERROR":
			sp.statusCode = "error"
		}
	}
	evs, err := otlpList(v, "events")
	if err != nil {
		return nil, err
	}
	for i, ev := range evs {
		attrs, err := otlpAttributes(ev, fmt.Sprintf("%s event %d", where, i))
		if err != nil {
			return nil, err
		}
		sp.events = append(sp.events, otlpEvent{name: str(ev, "name"), attrs: attrs})
	}
	links, err := otlpList(v, "links")
	if err != nil {
		return nil, err
	}
	for i, l := range links {
		lw := fmt.Sprintf("%s link %d", where, i)
		t, err := otlpID(l, "traceId", 16, lw)
		if err != nil {
			return nil, err
		}
		s, err := otlpID(l, "spanId", 8, lw)
		if err != nil {
			return nil, err
		}
		if s != "" {
			sp.links = append(sp.links, otlpLink{trace: t, span: s})
		}
	}
	return sp, nil
}

// otlpID reads an id of n bytes, hex or base64, as lower-case hex; an
// absent or empty id is "". An all-zero id is invalid (OTLP).
func otlpID(v objects.Value, key string, n int, where string) (string, error) {
	f, ok := v.Get(key)
	if !ok || f.Kind == objects.KindNull || f.Kind == objects.KindString && f.Str == "" {
		return "", nil
	}
	if f.Kind != objects.KindString {
		return "", fmt.Errorf("%w: %s: %s is a JSON %s, not a string", ErrBadOTLP, where, key, f.Kind)
	}
	var raw []byte
	var err error
	switch s := f.Str; {
	case len(s) == 2*n:
		raw, err = hex.DecodeString(s)
	case len(s) == base64.StdEncoding.EncodedLen(n):
		raw, err = base64.StdEncoding.Strict().DecodeString(s)
		if err != nil {
			raw, err = base64.URLEncoding.Strict().DecodeString(s)
		}
	default:
		err = fmt.Errorf("want %d hex digits or %d base64 characters", 2*n, base64.StdEncoding.EncodedLen(n))
	}
	if err == nil && len(raw) != n {
		err = fmt.Errorf("decodes to %d bytes, not %d", len(raw), n)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s: %s %q: %v", ErrBadOTLP, where, key, clipText(f.Str, 80), err)
	}
	if bytes.Count(raw, []byte{0}) == n {
		return "", fmt.Errorf("%w: %s: %s is all zero", ErrBadOTLP, where, key)
	}
	return hex.EncodeToString(raw), nil
}

// otlpNanos reads a Unix-nanosecond time, a JSON integer or a decimal
// string; absent is (0, false).
func otlpNanos(v objects.Value, key, where string) (int64, bool, error) {
	f, ok := v.Get(key)
	if !ok {
		return 0, false, nil
	}
	n, err := otlpInt(f)
	if err != nil || n < 0 {
		if err == nil {
			err = errors.New("negative")
		}
		return 0, false, fmt.Errorf("%w: %s: %s: %v", ErrBadOTLP, where, key, err)
	}
	return n, true, nil
}

// otlpInt reads an int64 given as a JSON integer or a decimal string.
func otlpInt(f objects.Value) (int64, error) {
	switch {
	case f.Kind == objects.KindInt && f.Big == nil:
		return f.Int, nil
	case f.Kind == objects.KindString:
		n, err := strconv.ParseInt(f.Str, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a 64-bit decimal integer", clipText(f.Str, 40))
		}
		return n, nil
	}
	return 0, fmt.Errorf("a JSON %s is not a 64-bit integer", f.Kind)
}

// otlpSpanKind is the span kind without its prefix, lower case.
func otlpSpanKind(v objects.Value) string {
	k, ok := v.Get("kind")
	if !ok {
		return ""
	}
	switch k.Kind {
	case objects.KindString:
		return strings.ToLower(strings.TrimPrefix(k.Str, "SPAN_KIND_"))
	case objects.KindInt:
		names := []string{"unspecified", "internal", "server", "client", "producer", "consumer"}
		if k.Big == nil && k.Int >= 0 && int(k.Int) < len(names) {
			return names[k.Int]
		}
	}
	return ""
}

// otlpList returns the array under the first present key of keys; absent
// or null is empty, anything else not an array is refused.
func otlpList(v objects.Value, keys ...string) ([]objects.Value, error) {
	f, ok := firstKey(v, keys...)
	if !ok || f.Kind == objects.KindNull {
		return nil, nil
	}
	if f.Kind != objects.KindArray {
		return nil, fmt.Errorf("%w: %s is a JSON %s, not a list", ErrBadOTLP, keys[0], f.Kind)
	}
	return f.Array, nil
}

// firstKey returns the member of the first present key.
func firstKey(v objects.Value, keys ...string) (objects.Value, bool) {
	if v.Kind != objects.KindObject {
		return objects.Value{}, false
	}
	for _, k := range keys {
		if f, ok := v.Get(k); ok {
			return f, true
		}
	}
	return objects.Value{}, false
}

// str returns v's string member key, or "".
func str(v objects.Value, key string) string {
	if f, ok := firstKey(v, key); ok && f.Kind == objects.KindString {
		return f.Str
	}
	return ""
}

// attrString returns the string attribute key, or "".
func attrString(attrs []objects.Member, key string) string {
	for _, m := range attrs {
		if m.Key == key && m.Value.Kind == objects.KindString {
			return m.Value.Str
		}
	}
	return ""
}
