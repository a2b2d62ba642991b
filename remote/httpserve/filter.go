package httpserve

import (
	"context"
	"encoding/json"

	"github.com/tinehq/tine/objects"
)

// objectTypes decodes object_types: null or [] is no filter; otherwise a
// list of the five type names.
func objectTypes(v json.RawMessage) (map[objects.Type]bool, *httpError) {
	if isNull(v) {
		return nil, nil
	}
	var names []string
	if err := json.Unmarshal(v, &names); err != nil {
		return nil, invalid("object_types is not a list of strings")
	}
	if len(names) == 0 {
		return nil, nil
	}
	types := make(map[objects.Type]bool, len(names))
	for _, n := range names {
		t := objects.Type(n)
		if !t.Valid() {
			return nil, invalid("object_types names an unknown type")
		}
		types[t] = true
	}
	return types, nil
}

// filterTypes keeps the objects of the listed types plus their direct
// links that the walk sends (spec §7 step 5); no filter keeps all.
func filterTypes(ctx context.Context, res *walkResult, types map[objects.Type]bool) ([]objects.OID, error) {
	if types == nil {
		return res.ids, nil
	}
	sent := make(map[objects.OID]bool, len(res.ids))
	for _, id := range res.ids {
		sent[id] = true
	}
	keep := map[objects.OID]bool{}
	for _, id := range res.ids {
		if !types[id.Type] {
			continue
		}
		keep[id] = true
		if id.Type == objects.TypeBlob {
			continue
		}
		o, err := res.set.Object(ctx, res.src, id)
		if err != nil {
			return nil, err
		}
		links, err := objects.Links(o)
		if err != nil {
			return nil, err
		}
		for _, l := range links {
			if sent[l] {
				keep[l] = true
			}
		}
	}
	var out []objects.OID
	for _, id := range res.ids {
		if keep[id] {
			out = append(out, id)
		}
	}
	return out, nil
}
