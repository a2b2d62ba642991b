package objects

import "fmt"

// Object is one decoded, valid object: its id, header fields, stored body
// and, for the json types, the parsed body.
type Object struct {
	// ID is the oid derived from Type, Schema and Body (SPEC §1.3).
	ID OID
	// Type is the object type from the header.
	Type Type
	// Schema is the header's schema, 1 <= Schema < 2^53; writers use 1.
	Schema int64
	// Body is the stored body: opaque bytes for a blob, canonical v3 JSON
	// for every other type.
	Body []byte
	// Value is the parsed body of a json object (with big integer literals
	// demoted to floats, SPEC §0.2); the zero Value for a blob, and for a
	// json object whose body was not parsed (Parsed reports false: a run
	// built by RunBody.Append or read by GetUnparsed).
	Value Value

	// unparsed marks a json object whose Value was left unparsed.
	unparsed bool
}

// Parsed reports whether o.Value holds o's parsed body (always for a
// blob, which has none). The objects functions that read payloads parse
// an unparsed body themselves; other code calls WithValue first.
func (o *Object) Parsed() bool { return !o.unparsed }

// WithValue returns o when its Value is parsed, else a copy of o with the
// body parsed as DecodeEnvelope parses it (an error for a body that is not
// canonical JSON).
func (o *Object) WithValue() (*Object, error) {
	if !o.unparsed {
		return o, nil
	}
	v, err := decodeJSONBody(o.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", o.Type, o.ID, err)
	}
	c := *o
	c.Value, c.unparsed = v, false
	return &c, nil
}

// Encoding returns the header's encoding: "raw" for a blob, else "json"
// (SPEC §1.2: the encoding is a function of the type).
func (o *Object) Encoding() string {
	if o.Type == TypeBlob {
		return "raw"
	}
	return "json"
}

// Stored returns the envelope bytes: canonical header, LF, body (SPEC §1.2).
func (o *Object) Stored() []byte {
	return o.AppendStored(make([]byte, 0, 80+len(o.Body)))
}

// AppendStored appends the envelope bytes of o to dst, so a pack or batch
// writer can frame many objects into one buffer.
func (o *Object) AppendStored(dst []byte) []byte {
	dst = AppendHeader(dst, o.Type, o.Schema)
	dst = append(dst, '\n')
	return append(dst, o.Body...)
}

// NewBlob returns the schema-1 blob holding data, named with hash profile a.
// The object retains data; a blob's bytes are opaque and never checked
// (SPEC §0.1). a must be a valid profile.
func NewBlob(a Algo, data []byte) *Object {
	if data == nil {
		data = []byte{}
	}
	return &Object{ID: deriveID(a, TypeBlob, 1, data), Type: TypeBlob, Schema: 1, Body: data}
}

// NewJSONObject builds an object of json type t from v: it refuses lone
// surrogates (text.lone-surrogate, SPEC §0.1: the put boundary checks text),
// canonicalises v with the v3 canonicalizer and validates the result exactly
// as DecodeEnvelope would, so the returned Value is what every reader sees.
func NewJSONObject(a Algo, t Type, schema int64, v Value) (*Object, error) {
	if err := checkNewHeader(a, t, schema); err != nil {
		return nil, err
	}
	if t == TypeBlob {
		return nil, Errorf(ReasonEnvelopeEncodingMismatch, "a blob holds raw bytes, not a JSON value")
	}
	if err := checkNoLoneSurrogate(v, 0); err != nil {
		return nil, err
	}
	body, err := CanonV3(v)
	if err != nil {
		return nil, err
	}
	return NewObjectFromBody(a, t, schema, body)
}

// NewObjectFromBody builds an object of type t from its stored body,
// validating a json body as DecodeEnvelope would. A blob body is taken as is.
// The object retains body.
func NewObjectFromBody(a Algo, t Type, schema int64, body []byte) (*Object, error) {
	if err := checkNewHeader(a, t, schema); err != nil {
		return nil, err
	}
	if body == nil {
		body = []byte{}
	}
	o := &Object{Type: t, Schema: schema, Body: body}
	if t != TypeBlob {
		v, err := decodeJSONBody(body)
		if err != nil {
			return nil, err
		}
		o.Value = v
	}
	o.ID = deriveID(a, t, schema, body)
	return o, nil
}

// checkNewHeader validates the header fields a writer supplies.
func checkNewHeader(a Algo, t Type, schema int64) error {
	if !a.Valid() {
		return ErrUnknownAlgo
	}
	if !t.Valid() {
		return Errorf(ReasonEnvelopeUnknownType, "unknown object type %.40q", string(t))
	}
	if schema < 1 || schema > MaxSchema {
		return Errorf(ReasonEnvelopeSchemaOutOfRange, "schema %d is outside 1..2^53-1", schema)
	}
	return nil
}

// checkNoLoneSurrogate walks v looking for a WTF-8 lone surrogate in any
// string or key. Depth is bounded by the canonicalizer's own limit, which
// runs next; the walk stops early so a hostile value cannot recurse deeper.
func checkNoLoneSurrogate(v Value, depth int) error {
	if depth > MaxJSONDepth+1 {
		return nil
	}
	switch v.Kind {
	case KindString:
		if hasRawSurrogate(v.Str) {
			return Errorf(ReasonTextLoneSurrogate, "string holds a lone surrogate")
		}
	case KindArray:
		for _, e := range v.Array {
			if err := checkNoLoneSurrogate(e, depth+1); err != nil {
				return err
			}
		}
	case KindObject:
		for _, m := range v.Object {
			if hasRawSurrogate(m.Key) {
				return Errorf(ReasonTextLoneSurrogate, "key holds a lone surrogate")
			}
			if err := checkNoLoneSurrogate(m.Value, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}
