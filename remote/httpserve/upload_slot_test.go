package httpserve_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/httpserve"
)

// TestUploadReadAfterSlot: a finished upload is read into memory only once
// it holds an install slot, so uploads finishing together wait without
// each holding its whole frame (up to 256 MiB) in memory.
func TestUploadReadAfterSlot(t *testing.T) {
	ts := startServer(t, httpserve.Config{})
	inUse := -1
	defer httpserve.SetUploadReadHook(func(s *httpserve.Server) { inUse = httpserve.PackSlotsInUse(s) })()
	src := newSource(t, objects.SHA256, "a", 10)
	frame := src.frame(t, src.run)
	sum := sha256.Sum256(frame)
	status, body, _ := ts.raw(t, "POST", "/v1/tenants/acme/packs", "", "application/json",
		[]byte(fmt.Sprintf(`{"sha256":%q,"size":%d}`, hex.EncodeToString(sum[:]), len(frame))))
	var d struct {
		UploadID string `json:"upload_id"`
	}
	if status != 201 || json.Unmarshal([]byte(body), &d) != nil {
		t.Fatalf("declare = %d %s", status, body)
	}
	if status, body := ts.patch(t, d.UploadID, 0, frame); status != 201 {
		t.Fatalf("the whole upload in one chunk = %d %s", status, body)
	}
	if inUse != 1 {
		t.Fatalf("the upload was read with %d install slots taken, want 1 (its own)", inUse)
	}
}
