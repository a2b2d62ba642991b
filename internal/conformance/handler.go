package conformance

import (
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/tinehq/tine/objects"
)

// opFunc answers one op: the output of an accepted input, or the error whose
// objects.ReasonOf is the refusal's reason code.
type opFunc func(h *Handler, in Input, args opArgs) (map[string]any, error)

// ops is the dispatch table. Each ops_*.go file registers the ops whose
// rules live in one library area; an op not in the table is unsupported.
var ops = map[string]opFunc{}

func register(name string, f opFunc) { ops[name] = f }

// Handler is the in-process adapter: it answers protocol requests with the
// library code under test, running the sha256 object profile.
type Handler struct {
	// Algo is the object profile: OpenTine's vectors are sha256, those of
	// testdata/conformance-blake3 blake3.
	Algo objects.Algo
}

// NewHandler returns a Handler for the sha256 profile.
func NewHandler() *Handler { return &Handler{Algo: objects.SHA256} }

// Supports reports whether the op is implemented.
func (h *Handler) Supports(op string) bool { _, ok := ops[op]; return ok }

// Handle answers one request. It never panics: a panic in the code under
// test becomes a refusal without a reason code, whose message says so.
func (h *Handler) Handle(req Request) (resp Response) {
	resp.ID = req.ID
	f, ok := ops[req.Op]
	if !ok {
		resp.Unsupported = true
		return resp
	}
	defer func() {
		if p := recover(); p != nil {
			resp = Response{ID: req.ID, Message: fmt.Sprintf("internal error: panic in %s: %v\n%s", req.Op, p, debug.Stack())}
		}
	}()
	args, err := parseArgs(req.Args)
	if err == nil {
		var out map[string]any
		out, err = f(h, req.Input, args)
		if err == nil {
			if out == nil {
				out = map[string]any{}
			}
			return Response{ID: req.ID, OK: true, Output: out}
		}
	}
	resp.Message = err.Error()
	if r, ok := objects.ReasonOf(err); ok {
		resp.Reason = string(r)
	}
	return resp
}

// opArgs is the union of the args the ops take (MANIFEST ops.<op>.args).
// The slices are nil when the arg is absent, so "given but empty" and "not
// given" stay apart (links.extract checks existence only when told what
// exists).
type opArgs struct {
	ExpectedOID *string      `json:"expected_oid"`
	Header      *headerArg   `json:"header"`
	Present     *[]string    `json:"present"`
	Objects     *[]string    `json:"objects"`
	Shallow     *[]string    `json:"shallow"`
	MaxTokens   *json.Number `json:"max_tokens"`
	Name        *string      `json:"name"`
	// Type and Schema are object.put's header args.
	Type   *string      `json:"type"`
	Schema *json.Number `json:"schema"`
	// The signature ops' args (ops_sig.go): sig.message's scheme and key,
	// sig.verify's family, key, public_key and trust_embedded, attest.sign's
	// algorithm, key, key_id and signed_at. Key names a suite key.
	Scheme        *string `json:"scheme"`
	Key           *string `json:"key"`
	Family        *string `json:"family"`
	PublicKey     *string `json:"public_key"`
	TrustEmbedded *bool   `json:"trust_embedded"`
	Algorithm     *string `json:"algorithm"`
	KeyID         *string `json:"key_id"`
	SignedAt      *string `json:"signed_at"`
}

// headerArg is the {type, schema} header of oid.derive and envelope.encode.
type headerArg struct {
	Type   string       `json:"type"`
	Schema *json.Number `json:"schema"`
}

func parseArgs(raw json.RawMessage) (opArgs, error) {
	var a opArgs
	if len(raw) == 0 || string(raw) == "null" {
		return a, nil
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, fmt.Errorf("%w: %v", errArgs, err)
	}
	return a, nil
}

// schema returns the header's schema, 1 when absent (the writer default).
func (h *headerArg) schema() (int64, error) {
	if h.Schema == nil {
		return 1, nil
	}
	n, err := h.Schema.Int64()
	if err != nil {
		return 0, fmt.Errorf("%w: header schema %s", errArgs, h.Schema)
	}
	return n, nil
}

func (in Input) bytes() ([]byte, error) {
	if in.Kind != InputBytes {
		return nil, errWantBytes
	}
	return in.Bytes, nil
}

func (in Input) value() (objects.Value, error) {
	if in.Kind != InputValue {
		return objects.Value{}, errWantValue
	}
	return DecodeTagged(in.Value)
}

// stringValue decodes a value input that the op needs as a string. A value
// of another JSON type can name nothing, so it is refused with the reason
// the op gives any malformed name (notString).
func (in Input) stringValue(notString objects.Reason) (string, error) {
	v, err := in.value()
	if err != nil {
		return "", err
	}
	if v.Kind != objects.KindString {
		return "", objects.Errorf(notString, "input is a JSON %s, not a string", v.Kind)
	}
	return v.Str, nil
}
