package s3client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

// waitFor returns a Backoff that waits d between tries.
func waitFor(d time.Duration) retry.BackoffDelayer {
	return retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return d, nil })
}

// testClient returns a client of srv with millisecond backoff.
func testClient(srv *httptest.Server) *Client {
	return New(Options{Endpoint: srv.URL, Region: "us-east-1", HTTPClient: srv.Client(),
		Credentials: aws.Credentials{AccessKeyID: "k", SecretAccessKey: "s"}, Backoff: waitFor(time.Millisecond)})
}

// s3Fail writes an S3 error answer.
func s3Fail(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>test answer</Message><RequestId>R1</RequestId></Error>`, code)
}

// TestRetries: 500, 502, 503, 504, 429 and S3's throttling and timeout
// codes are tried three times in all; other refusals once.
func TestRetries(t *testing.T) {
	cases := []struct {
		status int
		code   string
		tries  int64
	}{
		{500, "InternalError", 3}, {502, "BadGateway", 3}, {503, "SlowDown", 3}, {504, "GatewayTimeout", 3},
		{429, "TooManyRequests", 3}, {400, "RequestTimeout", 3}, {400, "Throttling", 3},
		{400, "InvalidArgument", 1}, {403, "AccessDenied", 1}, {404, "NoSuchKey", 1},
		{409, "ConditionalRequestConflict", 1}, {412, "PreconditionFailed", 1}, {501, "NotImplemented", 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.status, c.code), func(t *testing.T) {
			var tries atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tries.Add(1)
				s3Fail(w, c.status, c.code)
			}))
			defer srv.Close()
			_, err := testClient(srv).Get(context.Background(), "b", "k")
			var e *Error
			if !errors.As(err, &e) || e.Status != c.status || e.Code != c.code || e.Message != "test answer" {
				t.Fatalf("error %v, want %d %s", err, c.status, c.code)
			}
			if tries.Load() != c.tries {
				t.Fatalf("%d tries, want %d", tries.Load(), c.tries)
			}
			if c.tries > 1 && !strings.Contains(err.Error(), "3 tries") {
				t.Fatalf("message %q does not count the tries", err)
			}
		})
	}
}

// TestRetryRecovers: two 503s, then the answer: the third try succeeds
// and a PUT's body arrives whole each time, matching its signed hash.
func TestRetryRecovers(t *testing.T) {
	var tries atomic.Int64
	body := strings.Repeat("pack bytes ", 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := io.ReadAll(r.Body)
		sum := sha256.Sum256(got)
		if string(got) != body || r.Header.Get("X-Amz-Content-Sha256") != hex.EncodeToString(sum[:]) {
			t.Errorf("try %d: body of %d bytes, hash header %s", tries.Load()+1, len(got), r.Header.Get("X-Amz-Content-Sha256"))
		}
		if tries.Add(1) < 3 {
			s3Fail(w, 503, "SlowDown")
			return
		}
		w.Header().Set("ETag", `"e1"`)
	}))
	defer srv.Close()
	etag, err := testClient(srv).Put(context.Background(), "b", "k", strings.NewReader(body), int64(len(body)), Condition{IfNoneMatch: "*"})
	if err != nil || etag != `"e1"` || tries.Load() != 3 {
		t.Fatalf("put: %q, %v after %d tries", etag, err, tries.Load())
	}
}

// TestRetryConnectionErrors: a connection closed without an answer is
// tried again, for a read and for a listing whose body breaks midway.
func TestRetryConnectionErrors(t *testing.T) {
	var tries atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := tries.Add(1)
		if n == 1 {
			hijackClose(t, w)
			return
		}
		if n == 3 {
			// Promise a long listing, send a piece, hang up.
			w.Header().Set("Content-Length", "10000")
			w.Write([]byte(`<ListBucketResult><Contents>`))
			w.(http.Flusher).Flush()
			hijackClose(t, w)
			return
		}
		if r.URL.Query().Get("list-type") == "2" {
			w.Write([]byte(`<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>a</Key><ETag>"x"</ETag><Size>3</Size></Contents></ListBucketResult>`))
			return
		}
		w.Header().Set("ETag", `"e"`)
		w.Write([]byte("abc"))
	}))
	defer srv.Close()
	c := testClient(srv)
	obj, err := c.Get(context.Background(), "b", "k")
	if err != nil {
		t.Fatalf("get after a dropped connection: %v", err)
	}
	data, _ := io.ReadAll(obj.Body)
	obj.Body.Close()
	if string(data) != "abc" || obj.ETag != `"e"` || obj.Size != 3 {
		t.Fatalf("got %q %q %d", data, obj.ETag, obj.Size)
	}
	page, err := c.List(context.Background(), "b", "", "", 0)
	if err != nil || len(page.Objects) != 1 || page.Objects[0] != (ListedObject{Key: "a", ETag: `"x"`, Size: 3}) {
		t.Fatalf("list after a broken body: %+v, %v", page, err)
	}
	if tries.Load() != 4 {
		t.Fatalf("%d requests, want 4", tries.Load())
	}
}

// hijackClose drops the connection of w without an answer.
func hijackClose(t *testing.T, w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	conn.Close()
}

// TestCancelNotRetried: a request whose context ends while the server
// holds it returns the context's error after one try, and so does one
// cancelled during the backoff before a retry.
func TestCancelNotRetried(t *testing.T) {
	var tries atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tries.Add(1)
		if r.URL.Path == "/b/hold" {
			<-r.Context().Done()
			return
		}
		s3Fail(w, 503, "SlowDown")
	}))
	defer srv.Close()
	c := testClient(srv)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for tries.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := c.Get(ctx, "b", "hold"); !errors.Is(err, context.Canceled) || tries.Load() != 1 {
		t.Fatalf("cancelled while held: %v after %d tries", err, tries.Load())
	}
	tries.Store(0)
	slow := New(Options{Endpoint: srv.URL, Region: "us-east-1", HTTPClient: srv.Client(), Backoff: waitFor(time.Hour)})
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		for tries.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if err := slow.Delete(ctx, "b", "k"); !errors.Is(err, context.Canceled) || tries.Load() != 1 {
		t.Fatalf("cancelled in the backoff: %v after %d tries", err, tries.Load())
	}
}

// TestRetryQuota: the standard retryer's budget (500 tokens, 14 a
// retry) is shared by the client's requests and spent by failures that
// never recover: 17 requests get their 3 tries, the 18th 2 (10 tokens
// left), then only first tries; a success then gives a token back and a
// recovered request refunds its retry, so retries resume once the budget
// holds 14 again.
func TestRetryQuota(t *testing.T) {
	var tries, failing atomic.Int64
	failing.Store(1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tries.Add(1)
		if failing.Load() == 1 {
			s3Fail(w, 500, "InternalError")
		}
	}))
	defer srv.Close()
	c := testClient(srv)
	count := func() int64 {
		tries.Store(0)
		c.Delete(context.Background(), "b", "k")
		return tries.Load()
	}
	for i := 1; i <= 17; i++ {
		if n := count(); n != 3 {
			t.Fatalf("request %d: %d tries, want 3", i, n)
		}
	}
	if n := count(); n != 2 {
		t.Fatalf("request 18: %d tries, want 2 (the budget holds 10)", n)
	}
	for i := 19; i <= 21; i++ {
		if n := count(); n != 1 {
			t.Fatalf("request %d: %d tries, want 1 (the budget is spent)", i, n)
		}
	}
	failing.Store(0)
	for i := 0; i < 4; i++ { // 10 + 4 first-try successes: 14 tokens
		if n := count(); n != 1 {
			t.Fatalf("success: %d tries", n)
		}
	}
	failing.Store(1)
	if n := count(); n != 2 {
		t.Fatalf("after 4 successes: %d tries, want 2 (one retry's worth of tokens)", n)
	}
}

// TestRetryAfterEarlyAnswer: a server that refuses a large PUT before
// reading its body (503 at once) gets the whole body, intact, on the
// retry, though the transport may still be sending the first try's.
func TestRetryAfterEarlyAnswer(t *testing.T) {
	body := strings.Repeat("0123456789abcdef", 1<<18) // 4 MiB
	sum := sha256.Sum256([]byte(body))
	var tries atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tries.Add(1) == 1 {
			s3Fail(w, 503, "SlowDown")
			return
		}
		got, err := io.ReadAll(r.Body)
		if err != nil || sha256.Sum256(got) != sum || r.Header.Get("X-Amz-Content-Sha256") != hex.EncodeToString(sum[:]) {
			t.Errorf("retry's body: %d bytes, %v", len(got), err)
		}
		w.Header().Set("ETag", `"e"`)
	}))
	defer srv.Close()
	if _, err := testClient(srv).Put(context.Background(), "b", "k", strings.NewReader(body), int64(len(body)), Condition{}); err != nil || tries.Load() != 2 {
		t.Fatalf("put: %v after %d tries", err, tries.Load())
	}
}
