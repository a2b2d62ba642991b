package conformance

import (
	"encoding/base64"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// The primitive ops: text validity (SPEC §0.1), the two canonicalizers
// (SPEC §0.2, §0.3), the structural scanner (SPEC §0.5), oid derivation and
// parsing (SPEC §1.3) and loose-object paths (SPEC §2.3).
func init() {
	register("text.validate", opTextValidate)
	register("canon.v3", opCanonV3)
	register("canon.v2", opCanonV2)
	register("shape.scan", opShapeScan)
	register("oid.derive", opOIDDerive)
	register("oid.parse", opOIDParse)
	register("object.path", opObjectPath)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func opTextValidate(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	b, err := in.bytes()
	if err != nil {
		return nil, err
	}
	return nil, objects.ValidateText(b)
}

func opCanonV3(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	v, err := in.value()
	if err != nil {
		return nil, err
	}
	b, err := objects.CanonV3(v)
	if err != nil {
		return nil, err
	}
	return map[string]any{"bytes_b64": b64(b)}, nil
}

func opCanonV2(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	v, err := in.value()
	if err != nil {
		return nil, err
	}
	b, err := objects.CanonV2(v)
	if err != nil {
		return nil, err
	}
	return map[string]any{"bytes_b64": b64(b)}, nil
}

func opShapeScan(h *Handler, in Input, args opArgs) (map[string]any, error) {
	b, err := in.bytes()
	if err != nil {
		return nil, err
	}
	max := int64(objects.MaxBodyTokens) // the object-body budget unless told otherwise
	if args.MaxTokens != nil {
		if max, err = args.MaxTokens.Int64(); err != nil {
			return nil, fmt.Errorf("%w: max_tokens %s", errArgs, args.MaxTokens)
		}
	}
	return nil, objects.ScanShape(b, int(max))
}

// opOIDDerive hashes TYPE 0x00 SCHEMA 0x00 BODY under the handler's profile
// (SPEC §1.3); the header names the type and schema.
func opOIDDerive(h *Handler, in Input, args opArgs) (map[string]any, error) {
	b, err := in.bytes()
	if err != nil {
		return nil, err
	}
	if args.Header == nil {
		return nil, errArgs
	}
	schema, err := args.Header.schema()
	if err != nil {
		return nil, err
	}
	t := objects.Type(args.Header.Type)
	if !t.Valid() {
		return nil, fmt.Errorf("%w: header type %.40q is not an object type", errArgs, args.Header.Type)
	}
	return map[string]any{"oid": h.Algo.Derive(t, schema, b).String()}, nil
}

func opOIDParse(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	s, err := in.stringValue(objects.ReasonOidMalformed)
	if err != nil {
		return nil, err
	}
	id, err := objects.ParseOIDFor(h.Algo, s)
	if err != nil {
		return nil, err
	}
	return map[string]any{"type": string(id.Type), "digest": id.Hex()}, nil
}

func opObjectPath(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	s, err := in.stringValue(objects.ReasonPathInvalidOid)
	if err != nil {
		return nil, err
	}
	p, err := objects.LoosePathString(s)
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": p}, nil
}
