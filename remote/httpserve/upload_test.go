package httpserve_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/httpserve"
)

// patch sends one PATCH of an upload at offset.
func (ts *testServer) patch(t *testing.T, id string, offset int, body []byte) (int, string) {
	t.Helper()
	req := "/v1/tenants/acme/packs/" + id
	status, got, _ := ts.rawHeader(t, "PATCH", req, body, map[string]string{"Upload-Offset": strconv.Itoa(offset)})
	return status, got
}

// TestUploadStateMachine drives the resumable upload by hand: offsets,
// 409 with the server's offset, HEAD, the minimum chunk, a chunk past the
// end, a digest mismatch, and a record a crash left with every byte but
// no install, which an empty PATCH at the end finishes.
func TestUploadStateMachine(t *testing.T) {
	ts := startServer(t, httpserve.Config{})
	src := newSource(t, objects.SHA256, "a", 30)
	frame := src.frame(t, src.run)
	sum := sha256.Sum256(frame)
	declare := func(sum string, size int) string {
		t.Helper()
		status, body, _ := ts.raw(t, "POST", "/v1/tenants/acme/packs", "", "application/json",
			[]byte(fmt.Sprintf(`{"sha256":%q,"size":%d}`, sum, size)))
		var d struct {
			Offset   int    `json:"offset"`
			UploadID string `json:"upload_id"`
		}
		if status != 201 || json.Unmarshal([]byte(body), &d) != nil || d.Offset != 0 || len(d.UploadID) != 32 {
			t.Fatalf("declare = %d %s", status, body)
		}
		return d.UploadID
	}
	id := declare(hex.EncodeToString(sum[:]), len(frame))
	half := len(frame) / 2
	if status, body := ts.patch(t, id, 0, frame[:half]); status != 200 || body != fmt.Sprintf(`{"offset":%d}`, half) {
		t.Fatalf("first chunk = %d %s", status, body)
	}
	if status, body := ts.patch(t, id, 0, frame[:half]); status != 409 || body != fmt.Sprintf(`{"offset":%d}`, half) {
		t.Errorf("repeated chunk = %d %s, want 409 with the server's offset", status, body)
	}
	status, _, h := ts.rawHeader(t, "HEAD", "/v1/tenants/acme/packs/"+id, nil, nil)
	if status != 200 || h.Get("Upload-Offset") != strconv.Itoa(half) {
		t.Errorf("HEAD = %d, Upload-Offset %q", status, h.Get("Upload-Offset"))
	}
	if status, _ := ts.patch(t, id, half, frame[half:half+1]); status != 400 {
		t.Errorf("a 1-byte non-final chunk = %d, want 400", status)
	}
	if status, body := ts.patch(t, id, half, frame[half:]); status != 201 || !strings.Contains(body, `"objects":61`) {
		t.Fatalf("last chunk = %d %s", status, body)
	}
	if status, _, _ := ts.rawHeader(t, "HEAD", "/v1/tenants/acme/packs/"+id, nil, nil); status != 404 {
		t.Errorf("HEAD of a finished upload = %d, want 404", status)
	}
	if status, _, _ := ts.rawHeader(t, "HEAD", "/v1/tenants/acme/packs/xyz", nil, nil); status != 400 {
		t.Errorf("HEAD of a malformed id = %d, want 400", status)
	}

	// A chunk past the declared size ends the upload.
	id = declare(hex.EncodeToString(sum[:]), 10)
	if status, _ := ts.patch(t, id, 0, frame[:11]); status != 400 {
		t.Errorf("chunk past the end = %d, want 400", status)
	}
	if status, _ := ts.patch(t, id, 0, frame[:10]); status != 404 {
		t.Errorf("after a terminal error = %d, want 404", status)
	}
	// A pack that does not hash to its declaration is refused.
	id = declare(strings.Repeat("0", 64), len(frame))
	if status, _ := ts.patch(t, id, 0, frame); status != 400 {
		t.Errorf("digest mismatch = %d, want 400", status)
	}

	// A crash after the last byte was recorded but before the install:
	// an empty PATCH at the end installs it.
	other, _ := src.addRun(t, "b", 3)
	f2 := src.frame(t, other)
	s2 := sha256.Sum256(f2)
	id = declare(hex.EncodeToString(s2[:]), len(f2))
	dir := filepath.Join(ts.root, "uploads", "acme")
	var meta map[string]any
	b, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if err != nil || json.Unmarshal(b, &meta) != nil {
		t.Fatal(err)
	}
	meta["offset"] = len(f2)
	b, _ = json.Marshal(meta)
	if err := os.WriteFile(filepath.Join(dir, id+".part"), f2, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if status, body := ts.patch(t, id, len(f2), nil); status != 201 || !strings.Contains(body, `"objects":7`) {
		t.Fatalf("finishing PATCH = %d %s", status, body)
	}
	// And a .part longer than its record (a crash inside an append) is
	// cut back to the record.
	id = declare(hex.EncodeToString(s2[:]), len(f2))
	if err := os.WriteFile(filepath.Join(dir, id+".part"), f2[:100], 0o600); err != nil {
		t.Fatal(err)
	}
	if status, _, h := ts.rawHeader(t, "HEAD", "/v1/tenants/acme/packs/"+id, nil, nil); status != 200 || h.Get("Upload-Offset") != "0" {
		t.Errorf("HEAD after a torn append = %d offset %q, want 0", status, h.Get("Upload-Offset"))
	}
	if st, err := os.Stat(filepath.Join(dir, id+".part")); err != nil || st.Size() != 0 {
		t.Errorf("torn .part not cut back: %v %v", st, err)
	}
}
