package plumbing

import (
	"context"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
)

// ListRefsOptions configures ListRefs.
type ListRefsOptions struct {
	// Prefix limits the listing to refs at or under it, matched by whole
	// components ("heads" matches heads/main, not headsx/y); "refs/" is
	// optional. Empty lists every ref.
	Prefix string
}

// RefInfo is one ref of a listing (git for-each-ref's oid, type, name).
type RefInfo struct {
	OID  string       `json:"oid"`
	Type objects.Type `json:"type"`
	Name string       `json:"name"`
}

// ListRefsResult is what `tine refs` reports, sorted by name.
type ListRefsResult struct {
	Refs []RefInfo `json:"refs"`
}

// ListRefs lists refs and their values, like git for-each-ref. It reads ref
// files only; fsck checks their targets.
func ListRefs(ctx context.Context, r *Repo, opt ListRefsOptions) (*ListRefsResult, error) {
	prefix := strings.TrimSuffix(strings.TrimPrefix(opt.Prefix, "refs/"), "/")
	if prefix == "refs" {
		prefix = ""
	}
	if strings.Contains(prefix, "..") || strings.HasPrefix(prefix, "/") {
		return nil, fmt.Errorf("refs: prefix %q: %w", opt.Prefix, ErrNotConfined)
	}
	res := &ListRefsResult{Refs: []RefInfo{}}
	err := r.refs.List(ctx, prefix, func(name string, id objects.OID) error {
		if prefix != "" && name != prefix && !strings.HasPrefix(name, prefix+"/") {
			return nil
		}
		res.Refs = append(res.Refs, RefInfo{OID: id.String(), Type: id.Type, Name: name})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("refs: %w", err)
	}
	return res, nil
}
