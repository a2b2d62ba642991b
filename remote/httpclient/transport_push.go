package httpclient

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/wire"
)

// maxPackEnvelopeBytes caps the envelope bytes of one pushed pack, well
// under the 256 MiB frame bound once base64 and JSON are added, so every
// upload also finishes within the server's per-request deadline.
const maxPackEnvelopeBytes = 96 << 20

// Push uploads req.Set's objects in as many packs as the protocol's bounds
// need (the client's Limits: wire.MaxListIDs objects and shallow ids, or
// tine's extension's when the server offers it; and maxPackEnvelopeBytes
// each; the set is
// dependency ordered, so each pack links only to earlier packs or to what
// the remote holds, and installs on its own), then moves each ref by
// compare-and-swap.
func (t *Transport) Push(ctx context.Context, req remote.PushRequest) (*remote.PushResult, error) {
	a, err := t.serverAlgo(ctx)
	if err != nil {
		return nil, err
	}
	var ids []objects.OID
	if req.Set != nil {
		ids = req.Set.IDs
	}
	for _, id := range ids {
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
	if len(ids) > 0 {
		if err := t.uploadAll(ctx, req, res); err != nil {
			return nil, err
		}
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

// outgoing is one pack ready to upload, or the error that ended packing.
type outgoing struct {
	frame []byte
	id    string
	n     int
	err   error
}

// uploadAll cuts req's objects into packs and uploads them in order. The
// next frame is built while the current one uploads and the server
// installs it, so encoding on this side overlaps verifying on the other.
func (t *Transport) uploadAll(ctx context.Context, req remote.PushRequest, res *remote.PushResult) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	frames := make(chan outgoing, 1)
	go func() {
		defer close(frames)
		lim, binary, compress := t.c.Limits(), t.c.BinaryFrames(), t.c.CompressFrames()
		queue := func(frame []byte, id string, n int) error {
			select {
			case frames <- outgoing{frame: frame, id: id, n: n}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		send := func(objs []*objects.Object) error {
			frame, id, err := packFrame((*remote.SetLinks)(req.Set), objs, lim, binary, compress)
			if err != nil {
				return err
			}
			return queue(frame, id, len(objs))
		}
		// cut sends a batch, cut further by bytes; a contiguous slice of
		// a dependency order is still link-closed over what precedes it.
		cut := func(objs []*objects.Object) error {
			start, size := 0, 0
			for i, o := range objs {
				n := storedLen(o)
				if size+n > maxPackEnvelopeBytes && i > start {
					if err := send(objs[start:i]); err != nil {
						return err
					}
					start, size = i, 0
				}
				size += n
			}
			return send(objs[start:])
		}
		var err error
		if bs, ok := req.Source.(remote.BlockSource); ok && req.Set != nil && t.c.FrameBlocks() {
			err = blockBatches(ctx, req, bs, lim, compress, queue, cut)
		} else {
			err = remote.Batches(ctx, req.Set, req.Source, lim.Objects, func(objs []*objects.Object, _ []objects.OID) error {
				return cut(objs)
			})
		}
		if err != nil {
			select {
			case frames <- outgoing{err: err}:
			case <-ctx.Done():
			}
		}
	}()
	for out := range frames {
		if out.err != nil {
			return out.err
		}
		rec, err := t.c.Upload(ctx, out.frame)
		if err != nil {
			return fmt.Errorf("push pack %s: %w", out.id, mapError(err))
		}
		if rec.Objects != out.n {
			return fmt.Errorf("push pack %s: %w: the receipt counts %d objects, %d were sent", out.id, ErrProtocol, rec.Objects, out.n)
		}
		res.Objects += out.n
		res.Bytes += int64(len(out.frame))
		res.Packs++
	}
	return ctx.Err()
}

// storedLen is len(o.Stored()) without building the envelope (Stored
// copies the body: measuring a push's objects that way allocated and
// faulted in twice its size).
func storedLen(o *objects.Object) int {
	var hb [objects.MaxHeaderBytes]byte
	return len(objects.AppendHeader(hb[:0], o.Type, o.Schema)) + 1 + len(o.Body)
}

// packFrame writes objs as one frame whose shallow list is their links
// outside it (objects the remote holds or an earlier pack brought), within
// the manifest counts lim: tine's binary frame when binary (the server
// offered it; its body compressed when compress), else TINEPACK3. The
// objects' links come from links, the walk that chose them.
func packFrame(links *remote.SetLinks, objs []*objects.Object, lim objects.PackLimits, binary, compress bool) ([]byte, string, error) {
	boundary, err := links.External(objs)
	if err != nil {
		return nil, "", fmt.Errorf("push: %w", err)
	}
	var frame []byte
	var id string
	if binary {
		frame, id, err = wire.WriteFrame(objs, boundary, lim, compress)
	} else {
		frame, id, err = objects.WritePackLimits(objs, boundary, objects.PackLevelFast, lim)
	}
	if err != nil {
		return nil, "", fmt.Errorf("push: %w", err)
	}
	return frame, id, nil
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
	case errors.Is(err, ErrForbidden) && strings.HasPrefix(u.Name, "promotions/") && refusalReason(err) == "":
		// A server that does not say why (OpenTine's, an older tine
		// serve): either may be the cause.
		rr.Err = fmt.Errorf("%w: %w (the remote did not say why: its release policy does not hold for %s, or the token's role may not promote)", remote.ErrRefused, err, u.New)
	case errors.Is(err, ErrForbidden), errors.Is(err, ErrUnauthorized), errors.Is(err, ErrInvalid):
		rr.Err = fmt.Errorf("%w: %w", remote.ErrRefused, err)
	case errors.Is(err, ErrNotFound):
		// tine serve answers 404 too when new is stored but part of
		// what it links to is not (its log names the object).
		rr.Err = fmt.Errorf("%w: %w (the remote does not store %s or part of the history it links to)", remote.ErrNotFound, err, u.New)
	default:
		return rr, fmt.Errorf("push: ref %s: %w", u.Name, err)
	}
	return rr, nil
}
