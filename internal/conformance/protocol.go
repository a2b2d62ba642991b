package conformance

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// InputKind says which of the two protocol input spellings a request uses.
type InputKind uint8

// The two input spellings that reach an adapter (PROTOCOL: the runner
// resolves blob, path and gen inputs to bytes before sending).
const (
	InputNone  InputKind = iota // the request carried no input
	InputBytes                  // {"bytes_b64": ...}
	InputValue                  // {"value": <tagged tree>}
)

// Input is a request's input: raw bytes, or a tagged value tree kept as its
// JSON text so the op handler decodes it (tag decoding is the adapter's job).
type Input struct {
	Kind  InputKind
	Bytes []byte          // when Kind is InputBytes
	Value json.RawMessage // when Kind is InputValue: the tagged tree's JSON
}

// BytesInput returns an Input carrying raw bytes.
func BytesInput(b []byte) Input { return Input{Kind: InputBytes, Bytes: b} }

// ValueInput returns an Input carrying a tagged value tree's JSON text.
func ValueInput(raw json.RawMessage) Input { return Input{Kind: InputValue, Value: raw} }

// Request is one line of the protocol's input stream.
type Request struct {
	ID    string          `json:"id"`
	Op    string          `json:"op"`
	Input Input           `json:"input"`
	Args  json.RawMessage `json:"args,omitempty"`
}

// Response is one line of the protocol's output stream: an accepted answer
// with its Output, a refusal with its reason code, or Unsupported.
type Response struct {
	ID          string
	OK          bool
	Output      map[string]any // JSON-shaped: string, int64, bool, nil, []string, []any, map[string]any
	Reason      string         // reason code of a refusal; "" when the error carried none
	Unsupported bool           // the op is not implemented
	Message     string         // diagnostic text of a refusal, informative only
}

// MarshalJSON encodes the input as {"bytes_b64": ...} or {"value": ...}.
func (in Input) MarshalJSON() ([]byte, error) {
	switch in.Kind {
	case InputBytes:
		var b bytes.Buffer
		b.WriteString(`{"bytes_b64":"`)
		enc := base64.NewEncoder(base64.StdEncoding, &b)
		enc.Write(in.Bytes)
		enc.Close()
		b.WriteString(`"}`)
		return b.Bytes(), nil
	case InputValue:
		var b bytes.Buffer
		b.WriteString(`{"value":`)
		b.Write(in.Value)
		b.WriteString(`}`)
		return b.Bytes(), nil
	}
	return []byte(`{}`), nil
}

// b64Field decodes a JSON string of base64 straight from the request line,
// so a several-hundred-megabyte input is not copied into an intermediate
// Go string first.
type b64Field struct {
	set  bool
	data []byte
}

func (f *b64Field) UnmarshalJSON(data []byte) error {
	f.set = true
	var text []byte
	if len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"' && bytes.IndexByte(data, '\\') < 0 {
		text = data[1 : len(data)-1]
	} else {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("bytes_b64: %w", err)
		}
		text = []byte(s)
	}
	d, err := decodeStrictBase64(text)
	if err != nil {
		return err
	}
	f.data = d
	return nil
}

// decodeStrictBase64 decodes padded standard base64 and refuses the CR and
// LF that encoding/base64 would otherwise skip silently, and non-zero
// padding bits. (It checks those itself rather than using Strict(), which
// is several times slower on the suite's 360 MB input.)
func decodeStrictBase64(text []byte) ([]byte, error) {
	if bytes.IndexByte(text, '\r') >= 0 || bytes.IndexByte(text, '\n') >= 0 {
		return nil, errBase64
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(out, text)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBase64, err)
	}
	out = out[:n]
	// Canonical padding: the last quantum re-encodes to the same text.
	if tail := len(text) % 4; tail == 0 && len(text) >= 4 {
		var q [4]byte
		base64.StdEncoding.Encode(q[:], out[len(out)-(3-bytes.Count(text[len(text)-2:], []byte("="))):])
		if !bytes.Equal(q[:], text[len(text)-4:]) {
			return nil, fmt.Errorf("%w: non-zero padding bits", errBase64)
		}
	}
	return out, nil
}

// UnmarshalJSON decodes {"bytes_b64": ...} or {"value": ...}.
func (in *Input) UnmarshalJSON(data []byte) error {
	var b64 b64Field
	var value json.RawMessage
	err := scanObject(data, func(key string, raw []byte) error {
		switch key {
		case "bytes_b64":
			if b64.set {
				return errInputShape
			}
			return b64.UnmarshalJSON(raw)
		case "value":
			if value != nil || !json.Valid(raw) {
				return errInputShape
			}
			value = append(json.RawMessage(nil), raw...)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	switch {
	case b64.set && value == nil:
		*in = Input{Kind: InputBytes, Bytes: b64.data}
		if in.Bytes == nil {
			in.Bytes = []byte{}
		}
	case value != nil && !b64.set:
		*in = Input{Kind: InputValue, Value: value}
	default:
		return errInputShape
	}
	return nil
}

// UnmarshalJSON decodes a request. It splits the members itself (see
// scanObject) so a line carrying hundreds of megabytes of base64 is read in
// one pass; every member but that text is decoded by encoding/json.
func (r *Request) UnmarshalJSON(data []byte) error {
	var req Request
	seen := map[string]bool{}
	err := scanObject(data, func(key string, raw []byte) error {
		if seen[key] {
			return fmt.Errorf("%w: member %q repeated", errWire, key)
		}
		seen[key] = true
		switch key {
		case "id":
			return json.Unmarshal(raw, &req.ID)
		case "op":
			return json.Unmarshal(raw, &req.Op)
		case "input":
			return req.Input.UnmarshalJSON(raw)
		case "args":
			if !json.Valid(raw) {
				return fmt.Errorf("%w: args is not JSON", errWire)
			}
			req.Args = append(json.RawMessage(nil), raw...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, key := range []string{"id", "op", "input"} {
		if !seen[key] {
			return fmt.Errorf("%w: no %q member", errWire, key)
		}
	}
	*r = req
	return nil
}

// MarshalJSON encodes the response in one of the protocol's three shapes. An
// accepted answer always carries "output", even when it is {}: the runner
// compares it field by field.
func (r Response) MarshalJSON() ([]byte, error) {
	type accepted struct {
		ID     string         `json:"id"`
		OK     bool           `json:"ok"`
		Output map[string]any `json:"output"`
	}
	type refused struct {
		ID          string `json:"id"`
		OK          bool   `json:"ok"`
		Reason      string `json:"reason,omitempty"`
		Unsupported bool   `json:"unsupported,omitempty"`
		Message     string `json:"message,omitempty"`
	}
	var v any
	if r.OK {
		out := r.Output
		if out == nil {
			out = map[string]any{}
		}
		v = accepted{ID: r.ID, OK: true, Output: out}
	} else {
		v = refused{ID: r.ID, Reason: r.Reason, Unsupported: r.Unsupported, Message: r.Message}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// UnmarshalJSON decodes a response line (used by clients of an adapter).
func (r *Response) UnmarshalJSON(data []byte) error {
	var wire struct {
		ID          string         `json:"id"`
		OK          bool           `json:"ok"`
		Output      map[string]any `json:"output"`
		Reason      string         `json:"reason"`
		Unsupported bool           `json:"unsupported"`
		Message     string         `json:"message"`
	}
	if err := json.Unmarshal(data, &wire); err != nil {
		return err
	}
	*r = Response{ID: wire.ID, OK: wire.OK, Output: wire.Output, Reason: wire.Reason,
		Unsupported: wire.Unsupported, Message: wire.Message}
	return nil
}

// ParseRequest decodes one protocol line. Unknown fields are ignored, as a
// newer runner may send more.
func ParseRequest(line []byte) (Request, error) {
	var req Request
	if err := req.UnmarshalJSON(line); err != nil {
		return Request{}, fmt.Errorf("malformed request: %w", err)
	}
	return req, nil
}

// EncodeResponse returns the response as one protocol line, LF included.
func EncodeResponse(r Response) ([]byte, error) {
	b, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
