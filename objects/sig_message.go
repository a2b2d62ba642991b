package objects

import "fmt"

// SigMessage returns the exact bytes a signature of the given scheme covers
// over doc (SPEC §4.2): the domain prefix followed by the v2 canonical JSON
// (SPEC §0.3, for all three schemes) of the scheme's signed view.
//
// The views (SPEC §4.3–§4.5):
//
//	tine-sig/1:    {"body": doc minus "metadata", "header": H,
//	                "metadata": the frozen allowlist keys present}
//	tine-sig/2:    {"body": doc minus "metadata", "header": H,
//	                "metadata": every metadata key except "integrity"}
//	tine-attest/1: {"body": doc minus "signature", "header": H}
//
// H is always the five-key header with null for absent values. A doc (or an
// artifact's metadata) that is not an object fails with
// sig.payload-not-object; content the v2 canonicalizer refuses fails with
// its reason (canon.non-finite). An unknown scheme wraps
// ErrUnsupportedScheme.
func SigMessage(scheme string, doc Value, h SigHeader) ([]byte, error) {
	view, prefix, err := signedView(scheme, doc, h)
	if err != nil {
		return nil, err
	}
	msg, err := AppendCanonV2([]byte(prefix), view)
	if err != nil {
		return nil, fmt.Errorf("%s signed view: %w", scheme, err)
	}
	return msg, nil
}

// signedView builds the scheme's view and names its domain prefix.
func signedView(scheme string, doc Value, h SigHeader) (Value, string, error) {
	switch scheme {
	case SchemeAttestV1:
		if doc.Kind != KindObject {
			return Value{}, "", Errorf(ReasonSigPayloadNotObject, "attestation payload is a JSON %s, not an object", doc.Kind)
		}
		// SPEC §4.5: the block is the value being computed, so "signature"
		// (including the literal null older writers stored) is outside.
		return ObjectValue(
			Member{Key: "body", Value: without(doc, "signature")},
			Member{Key: "header", Value: h.value()},
		), sigPrefixAttest, nil
	case SchemeSigV1, SchemeSigV2:
		if doc.Kind != KindObject {
			return Value{}, "", Errorf(ReasonSigPayloadNotObject, "artifact is a JSON %s, not an object", doc.Kind)
		}
		md, err := signedMetadata(scheme, doc)
		if err != nil {
			return Value{}, "", err
		}
		return ObjectValue(
			Member{Key: "body", Value: without(doc, "metadata")},
			Member{Key: "header", Value: h.value()},
			Member{Key: "metadata", Value: md},
		), sigPrefixArtifact, nil
	}
	return Value{}, "", fmt.Errorf("%w: %.40q", ErrUnsupportedScheme, scheme)
}

// signedMetadata is the metadata member of an artifact view. An absent or
// empty-ish metadata (null, {}, [], "", 0, false) counts as {}, as the
// reference reads `data.get("metadata") or {}`; any other non-object is
// refused.
func signedMetadata(scheme string, doc Value) (Value, error) {
	md, ok := doc.Get("metadata")
	if !ok || !md.Truthy() {
		return ObjectValue(), nil
	}
	if md.Kind != KindObject {
		return Value{}, Errorf(ReasonSigPayloadNotObject, "artifact metadata is a JSON %s, not an object", md.Kind)
	}
	if scheme == SchemeSigV2 {
		// SPEC §4.4: "integrity" holds the block being computed and the
		// unkeyed digest over body keys the view already covers.
		return without(md, "integrity"), nil
	}
	var ms []Member
	for _, k := range sigV1MetadataKeys {
		if v, ok := md.Get(k); ok {
			ms = append(ms, Member{Key: k, Value: v})
		}
	}
	return ObjectValue(ms...), nil
}
