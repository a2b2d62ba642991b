package httpserve

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxAuditRow bounds one audit row (one line of audit/log): the server
// writes rows of a few hundred bytes, so a longer line is damage, and a
// verifier never holds more than this of a line in memory.
const maxAuditRow = 16 << 10

// zeroMAC is the prev of the first row of a chain.
var zeroMAC = strings.Repeat("0", 64)

// auditRow is one audited request (spec §13), one JSON line of audit/log,
// fields in key order so encoding/json writes its canonical form. MAC is
// HMAC-SHA256 under the audit key of the row encoded without it, Prev is
// the MAC of the row before (zeroMAC for seq 1): the chain.
type auditRow struct {
	Action    string            `json:"action"`
	Actor     string            `json:"actor"`
	Details   map[string]string `json:"details"`
	EventID   string            `json:"event_id"`
	MAC       string            `json:"mac,omitempty"`
	Outcome   string            `json:"outcome"`
	Prev      string            `json:"prev"`
	Seq       int64             `json:"seq"`
	Tenant    string            `json:"tenant"`
	Timestamp string            `json:"timestamp"`
}

// The domain prefixes of the two MACs, so a row's MAC can never pass for
// a head's.
const (
	rowDomain  = "tine-audit-row\n"
	headDomain = "tine-audit-head\n"
)

// mac returns the hex HMAC-SHA256 of msg under key, after domain.
func mac(key []byte, domain string, msg []byte) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(domain))
	h.Write(msg)
	return hex.EncodeToString(h.Sum(nil))
}

// seal sets row.MAC and returns the row's line, newline included. Every
// string is made valid UTF-8 first: encoding/json writes an invalid byte
// (from a request path, say) as \ufffd, which decodes to a character
// that re-encodes differently, and verification re-encodes each row.
func (row *auditRow) seal(key []byte) ([]byte, error) {
	for _, p := range []*string{&row.Action, &row.Actor, &row.EventID, &row.Outcome, &row.Tenant, &row.Timestamp} {
		*p = strings.ToValidUTF8(*p, "\uFFFD")
	}
	clean := make(map[string]string, len(row.Details))
	for k, v := range row.Details {
		clean[strings.ToValidUTF8(k, "\uFFFD")] = strings.ToValidUTF8(v, "\uFFFD")
	}
	row.Details = clean
	row.MAC = ""
	body, err := json.Marshal(row)
	if err != nil {
		return nil, err
	}
	row.MAC = mac(key, rowDomain, body)
	line, err := json.Marshal(row)
	if err != nil {
		return nil, err
	}
	if len(line)+1 > maxAuditRow {
		return nil, fmt.Errorf("audit row of %d bytes exceeds %d", len(line)+1, maxAuditRow)
	}
	return append(line, '\n'), nil
}

// Errors of parseRow; verification reports them as the reason a chain is
// invalid.
var (
	errRowSyntax = errors.New("not a canonical audit row")
	errRowMAC    = errors.New("MAC does not match (the row was altered or written without the key)")
)

// parseRow decodes one line (without its newline) and checks it is exactly
// the server's encoding of its fields and that its MAC holds under key:
// any changed byte fails one or the other.
func parseRow(line, key []byte) (*auditRow, error) {
	var row auditRow
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&row); err != nil || dec.More() || row.MAC == "" {
		return nil, errRowSyntax
	}
	again, err := json.Marshal(&row)
	if err != nil || !bytes.Equal(again, line) {
		return nil, errRowSyntax
	}
	want := row.MAC
	row.MAC = ""
	body, err := json.Marshal(&row)
	if err != nil {
		return nil, errRowSyntax
	}
	if !hmac.Equal([]byte(mac(key, rowDomain, body)), []byte(want)) {
		return nil, errRowMAC
	}
	row.MAC = want
	return &row, nil
}

// auditHead is audit/head: the seq and MAC of the last row, authenticated
// by Auth (HMAC under the key), so deleting the newest rows (which a
// chain alone cannot show) is detected, and a head cannot be rolled back
// without the key. First is the seq of audit/log's first row, so rows cut
// from its front are detected too, even with no segment before it to
// link to; 0 is unknown (a head from a tine serve before it, or no row
// yet), and is left out of the encoding, so such heads still authenticate.
type auditHead struct {
	Auth  string `json:"auth,omitempty"`
	First int64  `json:"first,omitempty"`
	MAC   string `json:"mac"`
	Seq   int64  `json:"seq"`
}

// encode returns the head's file content with Auth set.
func (h auditHead) encode(key []byte) []byte {
	h.Auth = ""
	body, _ := json.Marshal(h)
	h.Auth = mac(key, headDomain, body)
	b, _ := json.Marshal(h)
	return append(b, '\n')
}

// decodeHead parses audit/head and checks its Auth.
func decodeHead(b, key []byte) (auditHead, error) {
	var h auditHead
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil || h.Seq < 0 || h.First < 0 || h.First > h.Seq {
		return auditHead{}, errors.New("audit head is not a head record")
	}
	want := h.Auth
	h.Auth = ""
	body, _ := json.Marshal(h)
	if !hmac.Equal([]byte(mac(key, headDomain, body)), []byte(want)) {
		return auditHead{}, errors.New("audit head's authentication does not match")
	}
	return h, nil
}
