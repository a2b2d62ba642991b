package httpclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/wire"
)

// maxRecoveries bounds the HEAD recoveries of one upload.
const maxRecoveries = 3

// ErrUploadLost reports that the server no longer has an upload's state
// (HEAD answered 404): it must be declared again.
var ErrUploadLost = errors.New("upload state lost on the server")

// Receipt is the server's answer to an installed pack.
type Receipt struct {
	// Objects is the number of objects in the pack.
	Objects int
	// PackID is "sha256:<64 hex>", the frame's manifest digest.
	PackID string
	// Recoveries counts the transport failures the upload resumed from.
	Recoveries int
}

// Upload sends frame (TINEPACK3, or tine's binary frame to a server that
// offered it: each PATCH then carries wire.HeaderFrame) with the resumable
// protocol (spec §9): a declaration,
// then PATCH chunks from the server's offset; a chunk lost to a transport
// failure (no reply) is recovered by asking the server's offset with HEAD
// and resuming from there, at most maxRecoveries times. The final receipt
// must name the frame's own pack id.
func (c *Client) Upload(ctx context.Context, frame []byte) (*Receipt, error) {
	version := frameVersion(frame)
	if version == wire.FrameHeaderValue && !c.BinaryFrames() {
		return nil, fmt.Errorf("upload: the server did not offer tine's binary frame")
	}
	if version == wire.FrameBlocksHeaderValue && !c.FrameBlocks() {
		return nil, fmt.Errorf("upload: the server did not offer tine's binary frame of version %d", wire.FrameBlocksVersion)
	}
	size := int64(len(frame))
	if size < int64(objects.PackHeaderSize) {
		return nil, fmt.Errorf("upload: a frame of %d bytes is not a pack", size)
	}
	chunk := c.chunk.Load()
	if chunk < wire.MinChunk(size) {
		return nil, fmt.Errorf("upload: chunk size %d is below the minimum %d", chunk, wire.MinChunk(size))
	}
	sum := sha256.Sum256(frame)
	id, offset, err := c.declare(ctx, hex.EncodeToString(sum[:]), size)
	if err != nil {
		return nil, err
	}
	rec := &Receipt{}
	if offset == size {
		// A declaration that resumed an upload whose bytes all arrived:
		// the empty final PATCH asks the server to finish it.
		return c.finish(ctx, id, frame, rec)
	}
	limit := int((size+chunk-1)/chunk) + maxRecoveries + 4
	for iter := 0; offset < size; iter++ {
		if iter > limit {
			return nil, fmt.Errorf("upload: %w: no progress after %d requests", ErrProtocol, iter)
		}
		end := min(offset+chunk, size)
		status, m, err := c.patch(ctx, id, offset, frame[offset:end], version)
		var se *StatusError
		if err != nil && !errors.As(err, &se) && !errors.Is(err, ErrProtocol) && ctx.Err() == nil {
			if rec.Recoveries == maxRecoveries {
				return nil, fmt.Errorf("upload: gave up after %d recoveries: %w", maxRecoveries, err)
			}
			rec.Recoveries++
			at, herr := c.head(ctx, id)
			if herr != nil {
				return nil, fmt.Errorf("upload: recover after %v: %w", err, herr)
			}
			if at < offset || at > size {
				return nil, fmt.Errorf("upload: %w: HEAD offset %d outside %d..%d", ErrProtocol, at, offset, size)
			}
			offset = at
			if offset == size {
				// Every byte arrived but the reply was lost: an empty
				// PATCH at the end asks the server to finish the upload
				// again (installing is idempotent) and answer.
				return c.finish(ctx, id, frame, rec)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("upload: %w", err)
		}
		next, err := intField(m, "offset")
		if err != nil {
			return nil, fmt.Errorf("upload: %w", err)
		}
		switch {
		case status == http.StatusConflict && next == size:
			// The server already holds every byte (an earlier delivery of
			// this chunk landed, or finishing it failed and the server kept
			// the state, spec §9): finish as after a recovery, instead of
			// leaving the loop without a receipt.
			return c.finish(ctx, id, frame, rec)
		case status == http.StatusConflict && next > offset && next <= size:
		case status == http.StatusConflict:
			return nil, fmt.Errorf("upload: the server is at offset %d, not ahead of %d", next, offset)
		case next != end:
			return nil, fmt.Errorf("upload: %w: offset %d after a chunk ending at %d", ErrProtocol, next, end)
		}
		offset = next
		if status == http.StatusCreated {
			return c.receipt(m, frame, rec)
		}
	}
	return nil, fmt.Errorf("upload: %w: the upload ended without a receipt", ErrProtocol)
}

// finish sends the empty final PATCH of an upload whose bytes all arrived
// and reads the receipt. A failure says the bytes arrived and what to do:
// the upload's state may be gone because an earlier request installed the
// pack and its reply was lost, so a new push is the way on either way.
func (c *Client) finish(ctx context.Context, id string, frame []byte, rec *Receipt) (*Receipt, error) {
	status, m, err := c.patch(ctx, id, int64(len(frame)), nil, frameVersion(frame))
	if err == nil && status != http.StatusCreated {
		err = fmt.Errorf("%w: status %d", ErrProtocol, status)
	}
	if err != nil {
		return nil, fmt.Errorf("upload: the server holds all %d bytes but did not finish the upload (push again to start a new one): %w", len(frame), err)
	}
	return c.receipt(m, frame, rec)
}

// declare posts the upload declaration and returns the id and offset.
func (c *Client) declare(ctx context.Context, sum string, size int64) (string, int64, error) {
	b, _ := json.Marshal(map[string]any{"sha256": sum, "size": size})
	req := request{method: http.MethodPost, path: c.tenantPath("packs"), body: b, contentType: wire.JSONContentType, header: c.tineHeader(nil)}
	_, m, err := c.exchange(ctx, req, http.StatusOK, http.StatusCreated)
	if err != nil {
		return "", 0, fmt.Errorf("upload: %w", err)
	}
	var id string
	if err := json.Unmarshal(m["upload_id"], &id); err != nil || !isLowerHex(id, 32) {
		return "", 0, fmt.Errorf("upload: %w: upload_id is not 32 lowercase hex digits", ErrProtocol)
	}
	offset := int64(0)
	if _, ok := m["offset"]; ok {
		if offset, err = intField(m, "offset"); err != nil || offset > size {
			return "", 0, fmt.Errorf("upload: %w: declaration offset outside 0..%d", ErrProtocol, size)
		}
	}
	return id, offset, nil
}

// frameVersion is wire.HeaderFrame's value for an upload of frame: the
// binary frame's version, "" for TINEPACK3.
func frameVersion(frame []byte) string {
	switch {
	case wire.IsFrame(frame):
		return wire.FrameHeaderValue
	case wire.IsFrameBlocks(frame):
		return wire.FrameBlocksHeaderValue
	}
	return ""
}

// patch sends one chunk at offset; version, unless "", announces tine's
// binary frame of that version (wire.HeaderFrame; the server reads the
// whole upload as one when the chunk completes it).
func (c *Client) patch(ctx context.Context, id string, offset int64, chunk []byte, version string) (int, map[string]json.RawMessage, error) {
	header := c.tineHeader(map[string]string{wire.HeaderUploadOffset: strconv.FormatInt(offset, 10)})
	if version != "" {
		header[wire.HeaderFrame] = version
	}
	req := request{method: http.MethodPatch, path: c.tenantPath("packs/" + id), body: chunk,
		contentType: "application/offset+octet-stream", header: header}
	return c.exchange(ctx, req, http.StatusOK, http.StatusCreated, http.StatusConflict)
}

// head asks the server's offset of upload id (the Upload-Offset header,
// else the JSON body).
func (c *Client) head(ctx context.Context, id string) (int64, error) {
	req := request{method: http.MethodHead, path: c.tenantPath("packs/" + id)}
	resp, done, err := c.do(ctx, req)
	if err != nil {
		return 0, err
	}
	defer done()
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return 0, ErrUploadLost
	}
	if resp.StatusCode != http.StatusOK {
		return 0, c.statusError(req, resp)
	}
	if h := resp.Header.Get(wire.HeaderUploadOffset); h != "" {
		return intField(map[string]json.RawMessage{"offset": json.RawMessage(h)}, "offset")
	}
	m, err := readControl(resp)
	if err != nil {
		return 0, err
	}
	return intField(m, "offset")
}

// receipt checks the final reply: objects and a pack id equal to the
// frame's own.
func (c *Client) receipt(m map[string]json.RawMessage, frame []byte, rec *Receipt) (*Receipt, error) {
	n, err := intField(m, "objects")
	if err != nil {
		return nil, fmt.Errorf("upload: %w", err)
	}
	var id string
	if err := json.Unmarshal(m["pack_id"], &id); err != nil {
		return nil, fmt.Errorf("upload: %w: pack_id is not a string", ErrProtocol)
	}
	want := objects.PackIDPrefix + hex.EncodeToString(frame[len(objects.PackMagic):objects.PackHeaderSize])
	if id != want {
		return nil, fmt.Errorf("upload: %w: receipt names pack %.80s, the frame is %s", ErrProtocol, id, want)
	}
	rec.Objects, rec.PackID = int(n), id
	return rec, nil
}

// isLowerHex reports whether s is n lowercase hex digits.
func isLowerHex(s string, n int) bool {
	return len(s) == n && strings.Trim(s, "0123456789abcdef") == ""
}
