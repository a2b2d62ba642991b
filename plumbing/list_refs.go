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

// UnreadableRef is a ref file a listing skipped: a symlink, a file that is
// not regular or singly linked, or content that is not one oid of the
// repository's hash profile. fsck reports it as a problem.
type UnreadableRef struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Error string `json:"error"`
}

// ListRefsResult is what `tine refs` reports, sorted by name. Unreadable
// lists the refs that could not be read, so one bad ref file does not hide
// the others (git for-each-ref ignores a broken ref with a warning too).
type ListRefsResult struct {
	Refs       []RefInfo       `json:"refs"`
	Unreadable []UnreadableRef `json:"unreadable,omitempty"`
}

// ListRefs lists refs and their values, like git for-each-ref. It reads ref
// files only; fsck checks their targets. A ref file it cannot read is
// listed in Unreadable, not an error.
func ListRefs(ctx context.Context, r *Repo, opt ListRefsOptions) (*ListRefsResult, error) {
	prefix := strings.TrimSuffix(strings.TrimPrefix(opt.Prefix, "refs/"), "/")
	if prefix == "refs" {
		prefix = ""
	}
	if strings.Contains(prefix, "..") || strings.HasPrefix(prefix, "/") {
		return nil, fmt.Errorf("refs: prefix %q: %w", opt.Prefix, ErrNotConfined)
	}
	res := &ListRefsResult{Refs: []RefInfo{}}
	under := func(name string) bool {
		return prefix == "" || name == prefix || strings.HasPrefix(name, prefix+"/")
	}
	err := r.refs.ListTolerant(ctx, prefix, func(name string, id objects.OID) error {
		if under(name) {
			res.Refs = append(res.Refs, RefInfo{OID: id.String(), Type: id.Type, Name: name})
		}
		return nil
	}, func(name string, err error) error {
		if under(name) {
			res.Unreadable = append(res.Unreadable, UnreadableRef{Name: name, Path: "refs/" + name, Error: err.Error()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("refs: %w", err)
	}
	return res, nil
}
