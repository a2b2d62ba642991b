package httpserve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/remote/wire"
)

// receipt is the reply to an installed pack, fields in key order; Offset
// is set only when a resumable upload finished.
type receipt struct {
	Objects int    `json:"objects"`
	Offset  *int64 `json:"offset,omitempty"`
	PackID  string `json:"pack_id"`
}

// postPacks is POST …/packs (spec §5.6): a pack body (by Content-Type) is
// installed at once; anything else is a resumable-upload declaration.
func (s *Server) postPacks(c *call) *httpError {
	if !strings.HasPrefix(c.r.Header.Get("Content-Type"), wire.PackContentType) {
		return s.declare(c)
	}
	lim, herr := s.packLimits(c.r)
	if herr != nil {
		return herr
	}
	frame, herr := readBody(c.r, s.cfg.MaxBodyBytes)
	if herr != nil {
		return herr
	}
	id, n, herr := s.installPack(c.r.Context(), c.tenant, frame, lim, frameChoice{})
	if herr != nil {
		return herr
	}
	writeJSON(c.w, http.StatusCreated, receipt{Objects: n, PackID: id})
	return nil
}

// installPack verifies frame (tine's binary frame when fc.binary, of
// version 1 or 2 when fc.blocks, else TINEPACK3) and installs it into the tenant's repository
// (spec §8.3) within the manifest counts lim, returning its pack id and
// object count. Nothing is written
// unless the whole frame holds: the manifest, every object, every link
// leaving the pack already stored in the tenant (a tenant is never
// shallow, so a declared boundary the tenant lacks is refused), and the
// declared boundary equal to those links. Objects are written link targets
// first, in one batch, so an interrupted install leaves a link-closed
// subset and a ref can never name a missing object.
func (s *Server) installPack(ctx context.Context, tenant string, frame []byte, lim objects.PackLimits, fc frameChoice) (string, int, *httpError) {
	release, herr := slot(ctx, s.packSlots)
	if herr != nil {
		return "", 0, herr
	}
	defer release()
	return s.installHeld(ctx, tenant, frame, lim, fc)
}

// installHeld is installPack for a caller that holds a pack slot.
func (s *Server) installHeld(ctx context.Context, tenant string, frame []byte, lim objects.PackLimits, fc frameChoice) (string, int, *httpError) {
	if len(frame) == 0 {
		return "", 0, invalid("empty pack")
	}
	r, err := s.repo(tenant, true)
	if err != nil {
		return "", 0, internal(err.Error())
	}
	mu := s.tenantLock("install", tenant)
	mu.Lock()
	defer mu.Unlock()
	stage := &objects.StagingStore{Store: r.Objects()}
	var pf *objects.PackFrame
	var blocks []pack.RawBlock
	switch {
	case fc.blocks:
		pf, blocks, err = wire.ReadFrameBlocks(frame, r.Algo(), lim)
		if err == nil {
			pf, err = objects.InstallPackFrame(ctx, pf, stage, nil)
		}
	case fc.binary:
		pf, err = wire.ReadFrame(frame, r.Algo(), lim)
		if err == nil {
			pf, err = objects.InstallPackFrame(ctx, pf, stage, nil)
		}
	default:
		pf, err = objects.InstallPackLimits(ctx, frame, stage, nil, lim)
	}
	if err != nil {
		return "", 0, packError(err)
	}
	if len(pf.Boundary) > 0 {
		return "", 0, invalid(fmt.Sprintf("pack %s: unresolved shallow boundaries: %s", pf.ID, pf.Boundary[0]))
	}
	if err := putStaged(ctx, r.Objects(), stage.Staged, blocks); err != nil {
		return "", 0, internal(fmt.Sprintf("install %s: %v", pf.ID, err))
	}
	if err := s.noteReceived(ctx, r, tenant, stage.Staged); err != nil && s.cfg.Log != nil {
		s.cfg.Log(fmt.Sprintf("install %s: search journal: %v", pf.ID, err))
	}
	s.recent.add(tenant, stage.Staged)
	return pf.ID, len(pf.Objects), nil
}

// blockPutter is a store that can keep raw blocks as they arrived
// (plumbing's repository store; combined.Store.PutBatchBlocks).
type blockPutter interface {
	PutBatchBlocks(ctx context.Context, objs []*objects.Object, blocks []pack.RawBlock) error
}

// putStaged stores the verified objects staged, writing the raw blocks
// they arrived in as they are when the store can.
func putStaged(ctx context.Context, st objects.Store, staged []*objects.Object, blocks []pack.RawBlock) error {
	if bp, ok := st.(blockPutter); ok && len(blocks) > 0 {
		return bp.PutBatchBlocks(ctx, staged, blocks)
	}
	return objects.PutAll(ctx, st, staged)
}

// packError maps an install failure: a format violation (any
// *objects.FormatError, e.g. a bad frame, object or link) is the client's
// 400; anything else is the server's.
func packError(err error) *httpError {
	var fe *objects.FormatError
	if errors.As(err, &fe) || errors.Is(err, wire.ErrBadFrame) {
		return invalid(err.Error())
	}
	return internal(err.Error())
}

// sha256Hex is the lowercase hex SHA-256 of b.
func sha256Hex(b []byte) string {
	d := sha256.Sum256(b)
	return hex.EncodeToString(d[:])
}
