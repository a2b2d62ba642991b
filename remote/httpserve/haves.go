package httpserve

import (
	"context"
	"fmt"
	"net/http"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote/wire"
)

// havesClosure reports whether a fetch asks for its haves to be read as
// closure roots (wire.HeaderHaves). A server hiding the extension ignores
// the header, as OpenTine's does; any other value is refused (400).
func (s *Server) havesClosure(r *http.Request) (bool, *httpError) {
	v, ok := r.Header[http.CanonicalHeaderKey(wire.HeaderHaves)]
	if !ok || s.cfg.HideTineExtension {
		return false, nil
	}
	if len(v) != 1 || v[0] != wire.HavesClosure {
		return false, invalid(fmt.Sprintf("%s %.20q: the only value is %s", wire.HeaderHaves, v, wire.HavesClosure))
	}
	return true, nil
}

// heldBy returns a TransferOptions.Has answering from the link closure
// (no associations) of the haves the tenant stores: what a receiver that
// sent them as closure roots holds. Haves the tenant lacks say nothing
// and are skipped.
func heldBy(ctx context.Context, src plumbing.TransferSource, haves []objects.OID) (func(context.Context, objects.OID) (bool, error), *httpError) {
	var roots []objects.OID
	for _, id := range haves {
		ok, err := src.Has(ctx, id)
		if err != nil {
			return nil, internal(err.Error())
		}
		if ok {
			roots = append(roots, id)
		}
	}
	held := map[objects.OID]bool{}
	if len(roots) > 0 {
		set, err := plumbing.TransferClosure(ctx, src, plumbing.TransferOptions{Wants: roots, Depth: plumbing.NoDepth, NoAssociations: true})
		if err != nil {
			return nil, internal(err.Error())
		}
		for _, id := range set.IDs {
			held[id] = true
		}
	}
	return func(_ context.Context, id objects.OID) (bool, error) { return held[id], nil }, nil
}
