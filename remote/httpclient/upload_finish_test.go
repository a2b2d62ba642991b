package httpclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/wire"
)

// heldBytes stands in front of a tine server and makes it look as if the
// server already holds bytes it has not been sent yet: in mode "chunk" the
// chunk completing the upload is answered 409 {"offset":size} (as when an
// earlier delivery of it landed but its reply was lost); in mode "declare"
// the declaration answers offset size. The held bytes reach the server
// when the client sends the empty PATCH at size that asks it to finish;
// in mode "lost" that PATCH is answered 404, the state gone.
type heldBytes struct {
	inner  http.Handler
	mode   string
	frame  []byte
	heldAt int64
	held   []byte
	saw409 bool
}

func (h *heldBytes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	size := int64(len(h.frame))
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/packs") && h.mode == "declare" && h.held == nil:
		rec := httptest.NewRecorder()
		h.inner.ServeHTTP(rec, r)
		var d map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil || rec.Code != http.StatusCreated {
			http.Error(w, "declaration failed", http.StatusInternalServerError)
			return
		}
		d["offset"] = size
		h.heldAt, h.held = 0, h.frame
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(d)
		return
	case r.Method == http.MethodPatch:
		at, _ := strconv.ParseInt(r.Header.Get(wire.HeaderUploadOffset), 10, 64)
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		switch {
		case h.held == nil && len(body) > 0 && at+int64(len(body)) == size:
			h.heldAt, h.held, h.saw409 = at, body, true
			w.WriteHeader(http.StatusConflict)
			fmt.Fprintf(w, `{"offset":%d}`, size)
			return
		case h.held != nil && at == size && len(body) == 0:
			if h.mode == "lost" {
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprint(w, `{"error":"not found"}`)
				return
			}
			r.Header.Set(wire.HeaderUploadOffset, strconv.FormatInt(h.heldAt, 10))
			body = h.held
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	}
	h.inner.ServeHTTP(w, r)
}

// TestUploadServerAlreadyAtSize: a server answering 409 at offset == size,
// or a declaration at offset == size, holds every byte: the client asks it
// to finish (an empty PATCH at size) and returns its receipt, where it
// used to stop with "the upload ended without a receipt". When finishing
// fails, the error says the bytes arrived and to push again.
func TestUploadServerAlreadyAtSize(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{"chunk", "declare", "lost"} {
		t.Run(mode, func(t *testing.T) {
			_, s := startServer(t)
			run, frame := chain(t, newRepo(t), 50)
			h := &heldBytes{inner: s, mode: mode, frame: frame}
			hs := httptest.NewServer(h)
			t.Cleanup(hs.Close)
			c, err := httpclient.New(hs.URL+"/v1/tenants/acme", httpclient.Options{Token: testToken, Chunk: int64(len(frame)/4 + 1)})
			if err != nil {
				t.Fatal(err)
			}
			rec, err := c.Upload(ctx, frame)
			if mode == "lost" {
				if err == nil || !errors.Is(err, httpclient.ErrNotFound) || !strings.Contains(err.Error(), "holds all") || !strings.Contains(err.Error(), "push again") {
					t.Fatalf("finishing a lost upload: %v; want an error saying the bytes arrived and to push again", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("upload to a server already at the end: %v", err)
			}
			if mode == "chunk" && !h.saw409 {
				t.Fatal("the test did not answer 409 at the end")
			}
			if rec.Objects != 101 {
				t.Errorf("receipt objects = %d, want 101", rec.Objects)
			}
			if ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, run); err != nil || !ok {
				t.Errorf("ref after the finished upload: %v %v", ok, err)
			}
		})
	}
}
