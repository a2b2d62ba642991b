package s3client

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// recorder is an http.RoundTripper that answers 200 and keeps what it was
// sent: the client's HTTPClient override carries every request.
type recorder struct{ reqs []*http.Request }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	r.reqs = append(r.reqs, req)
	return &http.Response{StatusCode: 200, Header: http.Header{"Etag": {`"e"`}}, Body: http.NoBody, Request: req}, nil
}

func recordingClient(endpoint, region string) (*Client, *recorder) {
	rec := &recorder{}
	return New(Options{Endpoint: endpoint, Region: region, HTTPClient: &http.Client{Transport: rec},
		Credentials: aws.Credentials{AccessKeyID: "k", SecretAccessKey: "s"}}), rec
}

// TestAddressing: under a custom endpoint every request is path-style;
// without one it goes to AWS S3's regional endpoint, virtual-hosted
// unless the bucket has a dot (path-style then, as the SDK did), with
// .amazonaws.com.cn for China's regions. Keys are encoded once.
func TestAddressing(t *testing.T) {
	cases := []struct {
		endpoint, region, bucket, key, want string
	}{
		{"http://127.0.0.1:9000", "us-east-1", "runs", "team/refs/heads/main", "http://127.0.0.1:9000/runs/team/refs/heads/main"},
		{"https://s3.example/", "eu-west-1", "runs", "a b%c", "https://s3.example/runs/a%20b%25c"},
		{"", "us-east-1", "runs", "team/tine-remote.json", "https://runs.s3.us-east-1.amazonaws.com/team/tine-remote.json"},
		{"", "eu-central-1", "my.runs", "packs/p.idx", "https://s3.eu-central-1.amazonaws.com/my.runs/packs/p.idx"},
		{"", "cn-north-1", "runs", "k", "https://runs.s3.cn-north-1.amazonaws.com.cn/k"},
	}
	for _, c := range cases {
		cl, rec := recordingClient(c.endpoint, c.region)
		if _, err := cl.Get(context.Background(), c.bucket, c.key); err != nil {
			t.Fatal(err)
		}
		if got := rec.reqs[0].URL.String(); got != c.want {
			t.Errorf("%s %s %s: %s, want %s", c.endpoint, c.bucket, c.key, got, c.want)
		}
		if !strings.Contains(rec.reqs[0].Header.Get("Authorization"), "/"+c.region+"/s3/aws4_request") {
			t.Errorf("%s: signed for %s", c.want, rec.reqs[0].Header.Get("Authorization"))
		}
	}
	cl, _ := recordingClient("", "us-east-1/../x")
	if _, err := cl.Get(context.Background(), "runs", "k"); err == nil || !strings.Contains(err.Error(), "not a valid AWS region") {
		t.Fatalf("region that is not a host label: %v", err)
	}
}

// TestPayloadHash: over plain http a PUT signs its body's SHA-256 (and
// its length and condition), over
// https it declares UNSIGNED-PAYLOAD (as the SDK did); bodies from 2 MiB
// ask for 100-continue; requests without a body sign the empty hash.
func TestPayloadHash(t *testing.T) {
	body := "Welcome to Amazon S3."
	for _, c := range []struct{ endpoint, want string }{
		{"http://127.0.0.1:9000", "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"},
		{"https://s3.example", UnsignedPayload},
		{"", UnsignedPayload},
	} {
		cl, rec := recordingClient(c.endpoint, "us-east-1")
		if _, err := cl.Put(context.Background(), "runs", "k", strings.NewReader(body), int64(len(body)), Condition{IfMatch: `"e0"`}); err != nil {
			t.Fatal(err)
		}
		req := rec.reqs[0]
		if got := req.Header.Get("X-Amz-Content-Sha256"); got != c.want {
			t.Errorf("%s: payload hash %s, want %s", c.endpoint, got, c.want)
		}
		if req.ContentLength != int64(len(body)) || req.Header.Get("If-Match") != `"e0"` || req.Header.Get("Expect") != "" {
			t.Errorf("%s: length %d, headers %v", c.endpoint, req.ContentLength, req.Header)
		}
		if !strings.Contains(req.Header.Get("Authorization"), "SignedHeaders=content-length;host;if-match;x-amz-content-sha256;x-amz-date,") {
			t.Errorf("%s: %s", c.endpoint, req.Header.Get("Authorization"))
		}
	}
	cl, rec := recordingClient("http://127.0.0.1:9000", "us-east-1")
	big := strings.Repeat("x", expectContinueBytes)
	if _, err := cl.Put(context.Background(), "runs", "k", strings.NewReader(big), int64(len(big)), Condition{}); err != nil {
		t.Fatal(err)
	}
	if err := cl.Delete(context.Background(), "runs", "k"); err != nil {
		t.Fatal(err)
	}
	if rec.reqs[0].Header.Get("Expect") != "100-continue" || rec.reqs[1].Header.Get("X-Amz-Content-Sha256") != EmptyPayloadHash {
		t.Fatalf("large PUT %v; DELETE %v", rec.reqs[0].Header, rec.reqs[1].Header)
	}
}
