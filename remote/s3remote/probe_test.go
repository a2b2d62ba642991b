package s3remote

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// TestProbeAcceptsVersitygw: a real S3 server that enforces conditional
// writes passes both rounds of the probe, and the scratch key is gone
// afterwards.
func TestProbeAcceptsVersitygw(t *testing.T) {
	srv := vgwtest.Start(t)
	bucket := srv.Bucket(t)
	tr := newRemote(t, srv, bucket, "team/runs")
	ctx := context.Background()
	// Several probes: a race has many outcomes, and each must be exactly
	// one winner per round (a probe whose second round rewrote the first
	// winner's bytes let two If-Match writers win now and then).
	for i := 0; i < 10; i++ {
		if err := tr.Probe(ctx); err != nil {
			t.Fatalf("probe %d refused versitygw: %v\n%s", i, err, srv.Log())
		}
	}
	var left []string
	if err := tr.b.list(ctx, "", func(rel, _ string, _ int64) error { left = append(left, rel); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Fatalf("probe left keys behind: %v", left)
	}
}

// TestProbeRefusesServerIgnoringConditions: a real HTTP server that
// answers 200 to every PUT, whatever its If-None-Match or If-Match, is
// refused with "this server does not enforce conditional writes".
func TestProbeRefusesServerIgnoringConditions(t *testing.T) {
	var puts, conditional atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPut:
			puts.Add(1)
			if r.Header.Get("If-None-Match") == "*" || r.Header.Get("If-Match") != "" {
				conditional.Add(1)
			}
			w.Header().Set("ETag", `"0123456789abcdef0123456789abcdef"`)
			w.WriteHeader(http.StatusOK)
		case http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	cfg := Config{Bucket: "runs", Endpoint: srv.URL, Region: "us-east-1", AccessKeyID: "k", SecretAccessKey: "s"}
	err := New(cfg, remote.Options{}).Probe(context.Background())
	if !errors.Is(err, ErrNoConditionalWrites) {
		t.Fatalf("probe of a server ignoring conditions: %v, want ErrNoConditionalWrites", err)
	}
	if !strings.Contains(err.Error(), "this server does not enforce conditional writes") || !strings.Contains(err.Error(), "32 of 32") {
		t.Fatalf("message: %v", err)
	}
	if puts.Load() != ProbeWriters || conditional.Load() != ProbeWriters {
		t.Fatalf("server saw %d PUTs, %d conditional; want %d of each", puts.Load(), conditional.Load(), ProbeWriters)
	}
}
