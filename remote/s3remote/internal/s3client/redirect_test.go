package s3client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// TestRedirectNotFollowed: a 3xx answer is an error naming the status,
// not followed. A signed request is valid for one host and path only, a
// followed redirect would carry the session token (which net/http keeps
// across hosts, unlike Authorization) to wherever Location points, and
// whatever that host answered would be taken as the bucket's.
func TestRedirectNotFollowed(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Write([]byte("not the object"))
	}))
	defer other.Close()
	for _, status := range []int{301, 302, 307, 308} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/b/k", status)
		}))
		c := New(Options{Endpoint: srv.URL, Region: "us-east-1", Backoff: waitFor(0),
			Credentials: aws.Credentials{AccessKeyID: "k", SecretAccessKey: "s", SessionToken: "token"}})
		obj, err := c.Get(context.Background(), "b", "k")
		if obj != nil {
			obj.Body.Close()
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != status {
			t.Errorf("%d: error %v, want the %d answer", status, err, status)
		}
		// A caller's own client is not followed either (nor changed).
		hc := srv.Client()
		c = New(Options{Endpoint: srv.URL, Region: "us-east-1", HTTPClient: hc, Backoff: waitFor(0),
			Credentials: aws.Credentials{AccessKeyID: "k", SecretAccessKey: "s", SessionToken: "token"}})
		if _, _, err := c.Head(context.Background(), "b", "k"); !errors.As(err, &e) || e.Status != status {
			t.Errorf("%d with the caller's client: error %v, want the %d answer", status, err, status)
		}
		if hc.CheckRedirect != nil {
			t.Errorf("the caller's http.Client was changed")
		}
		srv.Close()
	}
	if n := elsewhere.Load(); n != 0 {
		t.Fatalf("%d requests followed a redirect to another host", n)
	}
}
