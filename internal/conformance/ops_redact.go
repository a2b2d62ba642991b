package conformance

import (
	"fmt"

	"github.com/tinehq/tine/objects"
)

// The writer-side redaction ops (SPEC §1.7): the byte scrubber, the value
// walk, and object.put, which redacts before it canonicalises and names.
func init() {
	register("redact.blob", opRedactBlob)
	register("redact.value", opRedactValue)
	register("object.put", opObjectPut)
}

func opRedactBlob(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	b, err := in.bytes()
	if err != nil {
		return nil, err
	}
	return map[string]any{"bytes_b64": b64(objects.RedactBlob(b))}, nil
}

// opRedactValue answers the v3 canonical form of the redacted value.
func opRedactValue(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	v, err := in.value()
	if err != nil {
		return nil, err
	}
	rv, _ := objects.RedactValue(v)
	b, err := objects.CanonV3(rv)
	if err != nil {
		return nil, err
	}
	return map[string]any{"bytes_b64": b64(b)}, nil
}

// opObjectPut is a writer's put: bytes become a blob through the byte
// scrubber (or, for a json type, are parsed as the payload), a value is
// redacted and canonicalised; the oid names the result. When the args say
// what the store holds, the new object's links must resolve in it, as a
// full local load of the stored object would require (objects.Validate);
// otherwise the link rules, run graph and annotation chain run without the
// existence check, as object.load does.
func opObjectPut(h *Handler, in Input, args opArgs) (map[string]any, error) {
	t, schema, err := putHeader(in, args)
	if err != nil {
		return nil, err
	}
	var o *objects.Object
	switch {
	case in.Kind == InputBytes && t == objects.TypeBlob:
		o, err = objects.RedactBlobObject(h.Algo, schema, in.Bytes)
	case in.Kind == InputBytes:
		var v objects.Value
		if v, err = parsePayload(in.Bytes); err == nil {
			o, err = objects.RedactObject(h.Algo, t, schema, v)
		}
	default:
		var v objects.Value
		if v, err = in.value(); err == nil {
			o, err = objects.RedactObject(h.Algo, t, schema, v)
		}
	}
	if err != nil {
		return nil, err
	}
	repo, err := newArgsRepo(h.Algo, args)
	if err != nil {
		return nil, err
	}
	if checksExistence(args) {
		_, err = objects.Validate(o, repo)
	} else if _, err = objects.Links(o); err == nil {
		if err = objects.CheckRunGraph(o, repo); err == nil {
			err = objects.CheckAnnotationChain(o, repo)
		}
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"oid": o.ID.String(), "body_b64": b64(o.Body)}, nil
}

// putHeader reads object.put's type and schema args. Bytes default to a
// blob; a value needs its type named. The schema defaults to 1, the writer
// default.
func putHeader(in Input, args opArgs) (objects.Type, int64, error) {
	var t objects.Type
	switch {
	case args.Type != nil:
		t = objects.Type(*args.Type)
	case in.Kind == InputBytes:
		t = objects.TypeBlob
	default:
		return "", 0, fmt.Errorf("%w: object.put of a value needs a type", errArgs)
	}
	if args.Schema == nil {
		return t, 1, nil
	}
	n, err := args.Schema.Int64()
	if err != nil {
		return "", 0, fmt.Errorf("%w: schema %s", errArgs, args.Schema)
	}
	return t, n, nil
}

// parsePayload reads a json payload handed over as bytes: bounded by the
// body token budget first, then the strict reader.
func parsePayload(b []byte) (objects.Value, error) {
	if err := objects.ScanShape(b, objects.MaxBodyTokens); err != nil {
		return objects.Value{}, err
	}
	v, err := objects.ParseJSON(b, objects.ParseOptions{MaxIntDigits: 4096})
	if err != nil {
		return objects.Value{}, fmt.Errorf("object.put payload: %w", err)
	}
	return v, nil
}
