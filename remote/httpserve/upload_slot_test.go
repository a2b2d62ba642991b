package httpserve_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// TestWholeUploadInstalledFromMemory: an upload whose one PATCH carries
// all of it is installed from that request's body, without being written
// to the upload state first (and so without reading it back); one sent in
// chunks is written as it arrives and read back whole.
func TestWholeUploadInstalledFromMemory(t *testing.T) {
	ts := startServer(t, httpserve.Config{})
	src := newSource(t, objects.SHA256, "a", 40)
	frame := src.frame(t, src.run)
	var partSize int64
	var id string
	defer httpserve.SetUploadReadHook(func(*httpserve.Server) {
		st, err := os.Stat(filepath.Join(ts.root, "uploads", "acme", id+".part"))
		if err != nil {
			t.Errorf("upload state of %s: %v", id, err)
			return
		}
		partSize = st.Size()
	})()
	declare := func() string {
		sum := sha256.Sum256(frame)
		status, body, _ := ts.raw(t, "POST", "/v1/tenants/acme/packs", "", "application/json",
			[]byte(fmt.Sprintf(`{"sha256":%q,"size":%d}`, hex.EncodeToString(sum[:]), len(frame))))
		var d struct {
			UploadID string `json:"upload_id"`
		}
		if status != 201 || json.Unmarshal([]byte(body), &d) != nil {
			t.Fatalf("declare = %d %s", status, body)
		}
		return d.UploadID
	}
	id = declare()
	if status, body := ts.patch(t, id, 0, frame); status != 201 {
		t.Fatalf("the whole upload in one chunk = %d %s", status, body)
	}
	if partSize != 0 {
		t.Fatalf("a whole upload in one request wrote %d bytes to its upload state before installing", partSize)
	}
	id = declare()
	half := len(frame) / 2
	if status, body := ts.patch(t, id, 0, frame[:half]); status != 200 {
		t.Fatalf("first chunk = %d %s", status, body)
	}
	if status, body := ts.patch(t, id, half, frame[half:]); status != 201 {
		t.Fatalf("last chunk = %d %s", status, body)
	}
	if partSize != int64(len(frame)) {
		t.Fatalf("an upload in chunks held %d bytes in its upload state when read, want %d", partSize, len(frame))
	}
}
