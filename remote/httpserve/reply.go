package httpserve

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/tinehq/tine/remote/wire"
)

// The fixed error texts of spec §2; a reply never carries more detail, so
// nothing about the server's state leaks to a caller.
const (
	textAuth      = "authentication failed"
	textForbidden = "forbidden"
	textNotFound  = "not found"
	textInvalid   = "invalid request"
	textBusy      = "server is busy"
	textInternal  = "internal error"
)

// httpError is a refusal with its status and fixed text; detail is for the
// server's log only.
type httpError struct {
	status int
	text   string
	detail string
}

func (e *httpError) Error() string {
	if e.detail != "" {
		return e.text + ": " + e.detail
	}
	return e.text
}

func invalid(detail string) *httpError {
	return &httpError{status: http.StatusBadRequest, text: textInvalid, detail: detail}
}

func notFound(detail string) *httpError {
	return &httpError{status: http.StatusNotFound, text: textNotFound, detail: detail}
}

func forbidden(detail string) *httpError {
	return &httpError{status: http.StatusForbidden, text: textForbidden, detail: detail}
}

func internal(detail string) *httpError {
	return &httpError{status: http.StatusInternalServerError, text: textInternal, detail: detail}
}

// writeJSON answers status with v as compact JSON (encoding/json sorts map
// keys; the structs used here declare their fields in key order), with
// Content-Length and Cache-Control: no-store.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	h := w.Header()
	h.Set("Content-Type", wire.JSONContentType)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError answers e's status with its fixed text.
func writeError(w http.ResponseWriter, e *httpError) {
	writeJSON(w, e.status, map[string]string{"error": e.text})
}

// writePack answers 200 with a frame of contentType (TINEPACK3's or
// tine's binary frame's).
func writePack(w http.ResponseWriter, contentType string, frame []byte, omitted int) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(frame)))
	h.Set("Cache-Control", "no-store")
	if omitted > 0 {
		h.Set(wire.HeaderAssociationsOmitted, strconv.Itoa(omitted))
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(frame)
}
