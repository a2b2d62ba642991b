package httpserve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/wire"
)

// readBody reads a request body by its Content-Length only (a chunked body
// reads as empty, as the reference server does), refusing one over limit
// with 400 — never 413 (spec §14.8) — before reading it.
func readBody(r *http.Request, limit int64) ([]byte, *httpError) {
	n := r.ContentLength
	if n <= 0 {
		return nil, nil
	}
	if n > limit {
		return nil, invalid(fmt.Sprintf("body of %d bytes exceeds %d", n, limit))
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.Body, b); err != nil {
		return nil, invalid("body shorter than its Content-Length")
	}
	return b, nil
}

// readObject reads a JSON object request (an empty body is {}) whose keys
// must all be in allowed, after the structural token budget. The values
// stay raw for the handler to type-check.
func readObject(r *http.Request, limit int64, allowed ...string) (map[string]json.RawMessage, *httpError) {
	b, herr := readBody(r, limit)
	if herr != nil {
		return nil, herr
	}
	if len(b) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	if err := objects.ScanShape(b, wire.MaxJSONTokens); err != nil {
		return nil, invalid(err.Error())
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, invalid("body is not a JSON object")
	}
	for k := range m {
		if !contains(allowed, k) {
			return nil, invalid(fmt.Sprintf("key %.40q not allowed", k))
		}
	}
	return m, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// isNull reports whether a raw value is absent or JSON null.
func isNull(v json.RawMessage) bool { return len(v) == 0 || string(v) == "null" }

// oidList decodes a list of oids of profile a (null is empty), at most
// wire.MaxListIDs long.
func oidList(v json.RawMessage, a objects.Algo, what string) ([]objects.OID, *httpError) {
	if isNull(v) {
		return nil, nil
	}
	var ss []string
	if err := json.Unmarshal(v, &ss); err != nil {
		return nil, invalid(what + " is not a list of strings")
	}
	if len(ss) > wire.MaxListIDs {
		return nil, invalid(fmt.Sprintf("%s has %d entries, at most %d", what, len(ss), wire.MaxListIDs))
	}
	out := make([]objects.OID, len(ss))
	for i, s := range ss {
		id, err := objects.ParseOIDFor(a, s)
		if err != nil {
			return nil, invalid(fmt.Sprintf("%s[%d]: %v", what, i, err))
		}
		out[i] = id
	}
	return out, nil
}

// depthValue decodes depth: null (-1, no limit) or a JSON integer >= 0;
// a bool, float, string or negative number is refused.
func depthValue(v json.RawMessage) (int, *httpError) {
	if isNull(v) {
		return -1, nil
	}
	s := strings.TrimSpace(string(v))
	if s == "" || len(s) > 10 {
		return 0, invalid("depth is not an integer >= 0")
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, invalid("depth is not an integer >= 0")
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, nil
}
