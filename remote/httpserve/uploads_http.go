package httpserve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/wire"
)

// declare is the resumable-upload declaration (spec §5.6): keys sha256 (64
// lowercase hex; missing is 404) and size (a JSON integer, 0 < size <=
// the upload cap). It answers 201 {"offset":0,"upload_id":…}.
func (s *Server) declare(c *call) *httpError {
	body, herr := readObject(c.r, s.cfg.MaxBodyBytes, "sha256", "size")
	if herr != nil {
		return herr
	}
	rawSum, ok := body["sha256"]
	if !ok {
		return notFound("no sha256")
	}
	var sum string
	if err := jsonString(rawSum, &sum); err != nil || !isLowerHex(sum, 64) {
		return invalid("sha256 is not 64 lowercase hex digits")
	}
	size, ok := jsonInt(body["size"])
	if !ok || size <= 0 || size > s.cfg.MaxUploadBytes {
		return invalid(fmt.Sprintf("size must be an integer in 1..%d", s.cfg.MaxUploadBytes))
	}
	id, err := s.uploads.declare(c.tenant, ownerOf(c.tenant, c.id.subject), sum, size)
	if errors.Is(err, errTooMany) {
		return invalid(err.Error())
	}
	if err != nil {
		return internal(err.Error())
	}
	writeJSON(c.w, http.StatusCreated, map[string]any{"offset": 0, "upload_id": id})
	return nil
}

// uploadChunk is HEAD and PATCH …/packs/{id} (spec §5.7, §9). HEAD reports
// the durable offset. PATCH appends the body at Upload-Offset (any other
// offset is 409 {"offset":n}); the last byte verifies the whole pack's
// SHA-256 and installs it.
func (s *Server) uploadChunk(c *call) *httpError {
	id := strings.TrimPrefix(c.resource, "packs/")
	if !isLowerHex(id, 32) {
		return invalid("upload id is not 32 lowercase hex digits")
	}
	unlock := s.uploads.lock(id)
	defer unlock()
	m, err := s.uploads.load(c.tenant, id)
	if errors.Is(err, errUploadGone) {
		return notFound("upload " + id)
	}
	if err != nil {
		return internal(err.Error())
	}
	if m.Owner != ownerOf(c.tenant, c.id.subject) {
		return forbidden(wire.RefusalOwner, "the upload was declared by another identity", "upload declared by another identity")
	}
	if c.r.Method == http.MethodHead {
		c.w.Header().Set(wire.HeaderUploadOffset, strconv.FormatInt(m.Offset, 10))
		writeJSON(c.w, http.StatusOK, map[string]int64{"offset": m.Offset})
		return nil
	}
	// The chunk that completes the upload installs it within the counts
	// its own request asks for; a bad header is refused before any byte.
	lim, herr := s.packLimits(c.r)
	if herr != nil {
		return herr
	}
	fc, herr := s.binaryFrame(c.r, true)
	if herr != nil {
		return herr
	}
	at := int64(-1)
	if h := c.r.Header.Get(wire.HeaderUploadOffset); h != "" {
		v, err := strconv.ParseInt(h, 10, 64)
		if err != nil {
			return invalid("Upload-Offset is not an integer")
		}
		at = v
	}
	if at != m.Offset {
		writeJSON(c.w, http.StatusConflict, map[string]int64{"offset": m.Offset})
		return nil
	}
	chunk, herr := readBody(c.r, s.cfg.MaxBodyBytes)
	if herr != nil {
		return herr
	}
	end := m.Offset + int64(len(chunk))
	if end > m.Size {
		_ = s.uploads.remove(c.tenant, id)
		return invalid(fmt.Sprintf("chunk ends at %d, past the declared size %d", end, m.Size))
	}
	if end < m.Size && int64(len(chunk)) < wire.MinChunk(m.Size) {
		return invalid(fmt.Sprintf("chunk of %d bytes is below the minimum %d", len(chunk), wire.MinChunk(m.Size)))
	}
	if m.Offset == 0 && end == m.Size {
		// One chunk holds the whole upload: it is checked and installed
		// from memory. Its bytes are not written to the upload state
		// first: that state is only there to resume from, and if the
		// server dies before answering the upload is still at offset 0,
		// to be sent again.
		return s.finalize(c, id, m, chunk, lim, fc)
	}
	if err := s.uploads.appendChunk(c.tenant, id, m, chunk); err != nil {
		return internal(err.Error())
	}
	if m.Offset < m.Size {
		writeJSON(c.w, http.StatusOK, map[string]int64{"offset": m.Offset})
		return nil
	}
	return s.finalize(c, id, m, nil, lim, fc)
}

// finalize checks and installs a complete upload within the manifest
// counts lim, as tine's binary frame when the completing request asked for
// it (fc; of version 1 or 2 when it asked for version 2), else as TINEPACK3: whole, when one request carried it all,
// else read from the upload state. A digest mismatch or an
// invalid pack ends the upload (its state is removed); a server-side
// failure keeps it, so the client may retry.
//
// The install slot is taken before the upload is read: an upload is read
// whole into memory (up to the declared size, 256 MiB), so reading before
// waiting for a slot would let many uploads finishing at once hold that
// much each while they wait (a whole upload in one request is within the
// request body cap, as every chunk waiting here is).
func (s *Server) finalize(c *call, id string, m *uploadMeta, whole []byte, lim objects.PackLimits, fc frameChoice) *httpError {
	release, herr := slot(c.r.Context(), s.packSlots)
	if herr != nil {
		return herr
	}
	defer release()
	if uploadReadHook != nil {
		uploadReadHook(s)
	}
	frame := whole
	if frame == nil {
		var err error
		if frame, err = s.uploads.readAll(c.tenant, id, m); err != nil {
			return internal(err.Error())
		}
	}
	sum := sha256Hex(frame)
	if sum != m.SHA256 {
		_ = s.uploads.remove(c.tenant, id)
		return invalid("upload does not hash to its declared sha256")
	}
	packID, n, herr := s.installHeld(c.r.Context(), c.tenant, frame, lim, fc)
	if herr != nil {
		if herr.status == http.StatusBadRequest {
			_ = s.uploads.remove(c.tenant, id)
		}
		return herr
	}
	if err := s.uploads.remove(c.tenant, id); err != nil {
		return internal(err.Error())
	}
	size := m.Size
	writeJSON(c.w, http.StatusCreated, receipt{Objects: n, Offset: &size, PackID: packID})
	return nil
}

// isLowerHex reports whether s is n lowercase hex digits.
func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < n; i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// jsonString decodes a JSON string.
func jsonString(v json.RawMessage, s *string) error {
	if len(v) == 0 || v[0] != '"' {
		return errors.New("not a string")
	}
	return json.Unmarshal(v, s)
}

// jsonInt decodes a JSON integer (not a bool, float or string).
func jsonInt(v json.RawMessage) (int64, bool) {
	s := strings.TrimSpace(string(v))
	if s == "" || len(s) > 18 {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// uploadReadHook, when set (tests), runs just before finalize reads an
// upload whole.
var uploadReadHook func(*Server)
