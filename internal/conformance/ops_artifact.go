package conformance

import (
	"encoding/json"
	"sort"

	"github.com/tinehq/tine/objects"
)

// The portable .tine artifact ops (SPEC §3.5, §3.7): the strict reader and
// the integrity digest and verdict.
func init() {
	register("artifact.parse", opArtifactParse)
	register("integrity.digest", opIntegrityDigest)
	register("integrity.verify", opIntegrityVerify)
}

// opArtifactParse runs the reader rules and answers the sorted top-level
// keys; a top-level array (or any other non-object) has none.
func opArtifactParse(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	b, err := in.bytes()
	if err != nil {
		return nil, err
	}
	doc, err := objects.ParseArtifact(b)
	if err != nil {
		return nil, err
	}
	keys := []string{}
	if doc.Kind == objects.KindObject {
		for _, m := range doc.Object {
			keys = append(keys, m.Key)
		}
		sort.Strings(keys) // code-point order, as Python's sorted()
	}
	return map[string]any{"top_level_keys": keys}, nil
}

// opIntegrityDigest answers the digest of a document the reader accepts.
func opIntegrityDigest(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	b, err := in.bytes()
	if err != nil {
		return nil, err
	}
	doc, err := objects.ParseArtifact(b)
	if err != nil {
		return nil, err
	}
	d, err := objects.IntegrityDigest(doc)
	if err != nil {
		return nil, err
	}
	return map[string]any{"digest": d}, nil
}

// opIntegrityVerify answers the verdict. A file the reader refuses has no
// verdict: it is refused with the reader's reason code.
func opIntegrityVerify(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	b, err := in.bytes()
	if err != nil {
		return nil, err
	}
	doc, err := objects.ParseArtifact(b)
	if err != nil {
		return nil, err
	}
	res := objects.VerifyIntegrity(doc)
	expected, err := jsonOf(res.Expected)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"ok": res.OK, "algorithm": nil, "expected": expected, "actual": nil, "reason": res.Reason}
	if res.Algorithm != nil {
		out["algorithm"] = *res.Algorithm
	}
	if res.Actual != nil {
		out["actual"] = *res.Actual
	}
	return out, nil
}

// jsonOf renders a parsed value for the response: its v2 canonical form,
// which is plain ASCII JSON with big integers written in full.
func jsonOf(v objects.Value) (json.RawMessage, error) {
	b, err := objects.CanonV2(v)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}
