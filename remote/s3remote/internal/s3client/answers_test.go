package s3client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestMalformedListRefused: a listing that is not S3's XML, one over
// MaxListBytes, one with a bad size, and a truncated page without a new
// continuation token are refused with ErrBadAnswer, each after one try.
func TestMalformedListRefused(t *testing.T) {
	huge := `<ListBucketResult><IsTruncated>false</IsTruncated>` + strings.Repeat("<Contents><Key>k</Key><Size>1</Size></Contents>", MaxListBytes/40) + `</ListBucketResult>`
	cases := map[string]string{
		"not xml":                   "<html><body>proxy error page",
		"other document":            `<Error><Code>X</Code></Error>`,
		"over the bound":            huge,
		"negative size":             `<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>`,
		"size not a number":         `<ListBucketResult><Contents><Key>k</Key><Size>big</Size></Contents></ListBucketResult>`,
		"truncated without token":   `<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>`,
		"truncated, the same token": `<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>t1</NextContinuationToken></ListBucketResult>`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			var tries atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tries.Add(1)
				w.Write([]byte(body))
			}))
			defer srv.Close()
			_, err := testClient(srv).List(context.Background(), "b", "p/", "t1", 0)
			if !errors.Is(err, ErrBadAnswer) || tries.Load() != 1 || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%v after %d tries", err, tries.Load())
			}
		})
	}
}

// TestListPaging: pages chain by continuation token, which is sent back
// as given (encoded in the query, decoded by the server).
func TestListPaging(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("list-type") != "2" || q.Get("prefix") != "team a/refs/" {
			t.Errorf("query %q", r.URL.RawQuery)
		}
		switch q.Get("continuation-token") {
		case "":
			w.Write([]byte(`<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>1/a+b==</NextContinuationToken><Contents><Key>team a/refs/x</Key><ETag>"1"</ETag><Size>5</Size></Contents></ListBucketResult>`))
		case "1/a+b==":
			w.Write([]byte(`<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>team a/refs/y</Key><ETag>"2"</ETag><Size>6</Size></Contents></ListBucketResult>`))
		default:
			t.Errorf("token %q", q.Get("continuation-token"))
		}
	}))
	defer srv.Close()
	c := testClient(srv)
	p1, err := c.List(context.Background(), "b", "team a/refs/", "", 0)
	if err != nil || p1.Next != "1/a+b==" || len(p1.Objects) != 1 {
		t.Fatalf("page 1: %+v, %v", p1, err)
	}
	p2, err := c.List(context.Background(), "b", "team a/refs/", p1.Next, 0)
	if err != nil || p2.Next != "" || len(p2.Objects) != 1 || p2.Objects[0].Key != "team a/refs/y" || p2.Objects[0].Size != 6 {
		t.Fatalf("page 2: %+v, %v", p2, err)
	}
}

// TestErrorAnswersBounded: an error answer is read up to maxErrorBody
// bytes; a larger one, an HTML page, or none at all (HEAD) still give the
// status and a code derived from it, in one line.
func TestErrorAnswersBounded(t *testing.T) {
	cases := []struct {
		name, body, code, msg string
		status                int
	}{
		{"huge", strings.Repeat("x", 10<<20), "Forbidden", "error answer over 65536 bytes, not read", 403},
		{"html", "<html><p>Bad gateway</html>", "NotFound", "the error answer is not S3 error XML", 404},
		{"empty", "", "PreconditionFailed", "", 412},
		{"multi-line message", "<Error><Code>AccessDenied</Code><Message>line one\nline two</Message></Error>", "AccessDenied", "line one", 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				w.Write([]byte(c.body))
			}))
			defer srv.Close()
			_, err := testClient(srv).Get(context.Background(), "b", "k")
			var e *Error
			if !errors.As(err, &e) || e.Status != c.status || e.Code != c.code || e.Message != c.msg || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%#v (%v)", e, err)
			}
		})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(404) }))
	defer srv.Close()
	_, _, err := testClient(srv).Head(context.Background(), "b", "k")
	var e *Error
	if !errors.As(err, &e) || e.Status != 404 || e.Code != "NotFound" {
		t.Fatalf("head of a missing key: %v", err)
	}
}
