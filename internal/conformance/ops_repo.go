package conformance

import (
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// The repository-file ops: ref names and ref files (SPEC §2.4), reflog rows (SPEC §2.6) and the shallow file
// (SPEC §2.7).
func init() {
	register("ref.name", opRefName)
	register("ref.file", opRefFile)
	register("reflog.row", opReflogRow)
	register("shallow.parse", opShallowParse)
	register("shallow.encode", opShallowEncode)
}

func opRefName(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	s, err := in.stringValue(objects.ReasonRefNameCharset)
	if err != nil {
		return nil, err
	}
	name, err := refs.NormalizeName(s)
	if err != nil {
		return nil, err
	}
	return map[string]any{"name": name}, nil
}

func opRefFile(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	b, err := in.bytes()
	if err != nil {
		return nil, err
	}
	id, err := refs.ParseRefFile(b)
	if err != nil {
		return nil, err
	}
	return map[string]any{"oid": id.String()}, nil
}

// opReflogRow is writer-only: the input is the row's five fields, the
// output the stored bytes with their LF.
func opReflogRow(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	v, err := in.value()
	if err != nil {
		return nil, err
	}
	e, err := refs.ReflogEntryFromValue(v)
	if err != nil {
		return nil, err
	}
	b, err := refs.EncodeReflogRow(e)
	if err != nil {
		return nil, err
	}
	return map[string]any{"bytes_b64": b64(b)}, nil
}

func opShallowParse(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	b, err := in.bytes()
	if err != nil {
		return nil, err
	}
	ids, err := refs.ParseShallow(b)
	if err != nil {
		return nil, err
	}
	return map[string]any{"oids": oidStrings(ids)}, nil
}

// opShallowEncode takes a list of oid strings; the writer sorts and
// de-duplicates, and refuses what the reader would refuse.
func opShallowEncode(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	v, err := in.value()
	if err != nil {
		return nil, err
	}
	if v.Kind != objects.KindArray {
		return nil, fmt.Errorf("%w: shallow.encode takes a list of oids, got a JSON %s", errArgs, v.Kind)
	}
	ids := make([]objects.OID, 0, len(v.Array))
	for _, e := range v.Array {
		if e.Kind != objects.KindString {
			return nil, objects.Errorf(objects.ReasonOidMalformed, "shallow entry is a JSON %s, not an oid", e.Kind)
		}
		id, err := objects.ParseOIDFor(h.Algo, e.Str)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return map[string]any{"bytes_b64": b64(refs.EncodeShallow(ids))}, nil
}

// oidStrings spells oids, sorted (the ops' unordered arrays are compared
// sorted anyway; sorting keeps the wire output deterministic).
func oidStrings(ids []objects.OID) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, id.String())
	}
	sortStrings(out)
	return out
}
