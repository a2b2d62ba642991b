package httpserve

import (
	"encoding/json"
	"net/http"
	"strconv"
	"unicode/utf8"

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
// server's log only. A 403 also carries reason (wire.Refusal…) and
// message, which only a client that opted in to tine's extension is sent
// (writeError).
type httpError struct {
	status  int
	text    string
	detail  string
	reason  string
	message string
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

// forbidden is a 403 for reason (wire.Refusal…), message saying why to
// the caller (see writeError) and detail to the log.
func forbidden(reason, message, detail string) *httpError {
	return &httpError{status: http.StatusForbidden, text: textForbidden, detail: detail, reason: reason, message: publicMessage(message)}
}

// publicMessage bounds a refusal's message within wire.MaxRefusalMessage
// bytes, cut at a rune with "…"; one wire.CheckRefusal would refuse
// (a control character from a policy's text) is left out.
func publicMessage(m string) string {
	if len(m) > wire.MaxRefusalMessage {
		cut := wire.MaxRefusalMessage - len("…")
		for cut > 0 && !utf8.RuneStart(m[cut]) {
			cut--
		}
		m = m[:cut] + "…"
	}
	if wire.CheckRefusal(wire.RefusalRole, m) != nil {
		return ""
	}
	return m
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

// writeError answers e's status with its fixed text; explain adds e's
// reason and message, when it has them, under the keys of tine's
// extension (wire.RefusalRole).
func writeError(w http.ResponseWriter, e *httpError, explain bool) {
	body := map[string]string{"error": e.text}
	if explain && e.reason != "" && e.message != "" {
		body["reason"], body["message"] = e.reason, e.message
	}
	writeJSON(w, e.status, body)
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
