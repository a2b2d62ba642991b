package httpclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/wire"
)

// maxPackEnvelopeBytes caps the envelope bytes of one pushed pack, well
// under the 256 MiB frame bound once base64 and JSON are added, so every
// upload also finishes within the server's per-request deadline.
const maxPackEnvelopeBytes = 96 << 20

// Push uploads req.Objects in as many packs as the protocol's bounds need
// (wire.MaxListIDs objects each; req.Objects is dependency ordered, so
// each pack links only to earlier packs or to what the remote holds, and
// installs on its own), then moves each ref by compare-and-swap.
func (t *Transport) Push(ctx context.Context, req remote.PushRequest) (*remote.PushResult, error) {
	a, err := t.serverAlgo(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range req.Objects {
		if id.Algo != a {
			return nil, fmt.Errorf("%s: %w: %s is a %s object, the remote stores %s", t.c.base, remote.ErrObjectFormat, id, id.Algo, a)
		}
	}
	for _, u := range req.Updates {
		if u.New.Algo != a {
			return nil, fmt.Errorf("%s: %w: ref %s names a %s object, the remote stores %s", t.c.base, remote.ErrObjectFormat, u.Name, u.New.Algo, a)
		}
	}
	res := &remote.PushResult{Refs: make([]remote.RefResult, 0, len(req.Updates))}
	var chunk []*objects.Object
	size := 0
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		n, err := t.uploadPack(ctx, chunk)
		if err != nil {
			return err
		}
		res.Objects += len(chunk)
		res.Bytes += int64(n)
		res.Packs++
		chunk, size = chunk[:0], 0
		return nil
	}
	for _, id := range req.Objects {
		o, err := req.Source.Get(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("push: read %s: %w", id, err)
		}
		if len(chunk) == wire.MaxListIDs || size+len(o.Stored()) > maxPackEnvelopeBytes && len(chunk) > 0 {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		chunk = append(chunk, o)
		size += len(o.Stored())
	}
	if err := flush(); err != nil {
		return nil, err
	}
	for _, u := range req.Updates {
		rr, err := t.moveRef(ctx, u)
		if err != nil {
			return nil, err
		}
		res.Refs = append(res.Refs, rr)
	}
	return res, nil
}

// uploadPack writes objs as one frame (its shallow list: their links
// outside it, which the remote holds or an earlier pack brought) and
// uploads it; it returns the frame's size.
func (t *Transport) uploadPack(ctx context.Context, objs []*objects.Object) (int, error) {
	in := make(map[objects.OID]bool, len(objs))
	for _, o := range objs {
		in[o.ID] = true
	}
	ext := map[objects.OID]bool{}
	for _, o := range objs {
		links, err := objects.Links(o)
		if err != nil {
			return 0, fmt.Errorf("push: %w", err)
		}
		for _, l := range links {
			if !in[l] {
				ext[l] = true
			}
		}
	}
	boundary := make([]objects.OID, 0, len(ext))
	for id := range ext {
		boundary = append(boundary, id)
	}
	frame, id, err := objects.WritePack(objs, boundary)
	if err != nil {
		return 0, fmt.Errorf("push: %w", err)
	}
	rec, err := t.c.Upload(ctx, frame)
	if err != nil {
		return 0, fmt.Errorf("push pack %s: %w", id, mapError(err))
	}
	if rec.Objects != len(objs) {
		return 0, fmt.Errorf("push pack %s: %w: the receipt counts %d objects, %d were sent", id, ErrProtocol, rec.Objects, len(objs))
	}
	return len(frame), nil
}

// moveRef applies one update. A lost CAS is a *remote.ConflictError
// naming the value the remote holds now; a refusal (role, policy) wraps
// remote.ErrRefused; both are per-ref results. Anything else ends the push.
func (t *Transport) moveRef(ctx context.Context, u remote.RefUpdate) (remote.RefResult, error) {
	rr := remote.RefResult{RefUpdate: u}
	ok, err := t.c.UpdateRef(ctx, u.Name, u.Old, u.New)
	switch {
	case err == nil && ok:
		rr.Updated = true
	case err == nil:
		ce := &remote.ConflictError{Ref: u.Name, Expected: u.Old}
		if refs, lerr := t.c.Refs(ctx); lerr == nil {
			ce.Actual = refs[u.Name]
		}
		rr.Err = ce
	case errors.Is(err, ErrForbidden), errors.Is(err, ErrUnauthorized), errors.Is(err, ErrInvalid):
		rr.Err = fmt.Errorf("%w: %w", remote.ErrRefused, err)
	case errors.Is(err, ErrNotFound):
		rr.Err = fmt.Errorf("%w: %w", remote.ErrNotFound, err)
	default:
		return rr, fmt.Errorf("push: ref %s: %w", u.Name, err)
	}
	return rr, nil
}
