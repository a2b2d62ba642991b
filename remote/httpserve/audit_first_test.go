package httpserve

import (
	"strings"
	"testing"
)

// TestAuditHeadWithoutFirst: a head written before it recorded where
// audit/log begins still authenticates and verifies; the next row records
// the log's first row, from which a front cut is detected.
func TestAuditHeadWithoutFirst(t *testing.T) {
	l, err := openAuditLog(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := l.append(&auditRow{Action: "read_ref", Actor: "t", Details: map[string]string{}, Outcome: "ok", Tenant: "acme"}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := l.readHead()
	if err != nil || h.First != 1 || h.Seq != 3 {
		t.Fatalf("head after 3 rows = %+v, %v; want first 1, seq 3", h, err)
	}
	if err := l.writeHead(auditHead{MAC: h.MAC, Seq: h.Seq}); err != nil {
		t.Fatal(err)
	}
	if why, err := l.verify(); why != "" || err != nil {
		t.Fatalf("an old head: verify = %q, %v", why, err)
	}
	if err := l.append(&auditRow{Action: "read_ref", Actor: "t", Details: map[string]string{}, Outcome: "ok", Tenant: "acme"}); err != nil {
		t.Fatal(err)
	}
	if h, err := l.readHead(); err != nil || h.First != 1 || h.Seq != 4 {
		t.Fatalf("head after a row on an old head = %+v, %v; want first 1, seq 4", h, err)
	}
	if why, _ := l.verify(); why != "" {
		t.Fatalf("verify = %q", why)
	}
	// A forged head claiming a first row after its last is refused.
	if _, err := decodeHead(trimNewline(auditHead{First: 9, MAC: h.MAC, Seq: 4}.encode(l.key)), l.key); err == nil || !strings.Contains(err.Error(), "not a head record") {
		t.Errorf("a head whose first row follows its last: %v", err)
	}
}
