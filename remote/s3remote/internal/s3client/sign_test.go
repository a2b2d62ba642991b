package s3client

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The vectors below are the published examples of AWS's S3 documentation
// ("Signature Calculations for the Authorization Header: Transferring
// Payload in a Single Chunk"): the documented example credentials,
// bucket, date and requests, and the signatures AWS gives for them.
var (
	exampleCreds = Credentials{AccessKeyID: "AKIAIOSFODNN7EXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
	exampleTime  = time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)
)

func exampleRequest(t *testing.T, method, rawURL string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// signature returns the Signature= part of req's Authorization header
// and its SignedHeaders= list.
func signature(t *testing.T, req *http.Request) (sig, signed string) {
	t.Helper()
	auth := req.Header.Get("Authorization")
	const scope = "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
	if !strings.HasPrefix(auth, scope) {
		t.Fatalf("Authorization %q lacks the credential scope", auth)
	}
	_, signed, _ = strings.Cut(auth, "SignedHeaders=")
	signed, sig, _ = strings.Cut(signed, ", Signature=")
	return sig, signed
}

// TestSignAWSExamples: the four S3 examples of AWS's documentation sign
// to the documented signatures: GET with a Range header, PUT with the
// body's hash and extra headers (and a '$' in the key, encoded once),
// a sub-resource query (?lifecycle) and a list query sorted and encoded
// (?max-keys=2&prefix=J).
func TestSignAWSExamples(t *testing.T) {
	cases := []struct {
		name, method, url string
		header            map[string]string
		payload           string
		signed, sig       string
	}{
		{"GET object with range", "GET", "https://examplebucket.s3.amazonaws.com/test.txt",
			map[string]string{"Range": "bytes=0-9"}, EmptyPayloadHash,
			"host;range;x-amz-content-sha256;x-amz-date", "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"},
		{"PUT object", "PUT", "https://examplebucket.s3.amazonaws.com/test$file.text",
			map[string]string{"Date": "Fri, 24 May 2013 00:00:00 GMT", "X-Amz-Storage-Class": "REDUCED_REDUNDANCY"},
			"44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
			"date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class", "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"},
		{"GET bucket lifecycle", "GET", "https://examplebucket.s3.amazonaws.com/?lifecycle", nil, EmptyPayloadHash,
			"host;x-amz-content-sha256;x-amz-date", "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"},
		{"list objects", "GET", "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J", nil, EmptyPayloadHash,
			"host;x-amz-content-sha256;x-amz-date", "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := exampleRequest(t, c.method, c.url)
			if c.method == "PUT" {
				req.URL.RawPath = EscapePath(req.URL.Path)
			}
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			Sign(req, exampleCreds, "us-east-1", c.payload, exampleTime)
			sig, signed := signature(t, req)
			if signed != c.signed || sig != c.sig {
				canon, _ := canonicalRequest(req, c.payload)
				t.Fatalf("signed headers %q, signature %s\nwant %q, %s\ncanonical request:\n%s", signed, sig, c.signed, c.sig, canon)
			}
		})
	}
}

// TestCanonicalRequestEncoding: keys are encoded exactly once with '/'
// kept in the path (a '%' in a key is %25, never %2525), the query is
// sorted and encoded with '/' as %2F, '+' as %2B and ' ' as %20 (a
// ListObjectsV2 page with a continuation token and a prefix), and a
// session token is sent and signed.
func TestCanonicalRequestEncoding(t *testing.T) {
	req := exampleRequest(t, "GET", "https://s3.example/bucket")
	key := "team a/refs/heads/x%y+z"
	req.URL.Path = "/bucket/" + key
	req.URL.RawPath = "/bucket/" + EscapePath(key)
	q := url.Values{"list-type": {"2"}, "prefix": {"team a/refs/"}, "continuation-token": {"1/a+b=="}}
	req.URL.RawQuery = CanonicalQuery(q)
	creds := exampleCreds
	creds.SessionToken = "token/with+chars="
	Sign(req, creds, "us-east-1", EmptyPayloadHash, exampleTime)
	canon, signed := canonicalRequest(req, EmptyPayloadHash)
	want := "GET\n" +
		"/bucket/team%20a/refs/heads/x%25y%2Bz\n" +
		"continuation-token=1%2Fa%2Bb%3D%3D&list-type=2&prefix=team%20a%2Frefs%2F\n" +
		"host:s3.example\n" +
		"x-amz-content-sha256:" + EmptyPayloadHash + "\n" +
		"x-amz-date:20130524T000000Z\n" +
		"x-amz-security-token:token/with+chars=\n" +
		"\n" +
		"host;x-amz-content-sha256;x-amz-date;x-amz-security-token\n" +
		EmptyPayloadHash
	if canon != want {
		t.Fatalf("canonical request:\n%s\nwant:\n%s", canon, want)
	}
	if signed != "host;x-amz-content-sha256;x-amz-date;x-amz-security-token" || req.Header.Get("X-Amz-Security-Token") != creds.SessionToken {
		t.Fatalf("session token not sent and signed: %q, %v", signed, req.Header)
	}
	if got := req.URL.String(); got != "https://s3.example/bucket/team%20a/refs/heads/x%25y%2Bz?continuation-token=1%2Fa%2Bb%3D%3D&list-type=2&prefix=team%20a%2Frefs%2F" {
		t.Fatalf("sent URL %s differs from the signed one", got)
	}
}

// TestSignUnsignedPayload: a request signed with UNSIGNED-PAYLOAD says so
// in X-Amz-Content-Sha256 and ends its canonical request with it, and
// conditional headers are signed.
func TestSignUnsignedPayload(t *testing.T) {
	req := exampleRequest(t, "PUT", "https://examplebucket.s3.amazonaws.com/refs/heads/main")
	req.Header.Set("If-Match", `"abc"`)
	Sign(req, exampleCreds, "us-east-1", UnsignedPayload, exampleTime)
	canon, signed := canonicalRequest(req, UnsignedPayload)
	if req.Header.Get("X-Amz-Content-Sha256") != UnsignedPayload || !strings.HasSuffix(canon, "\n"+UnsignedPayload) {
		t.Fatalf("unsigned payload not declared:\n%s", canon)
	}
	if signed != "host;if-match;x-amz-content-sha256;x-amz-date" {
		t.Fatalf("signed headers %q", signed)
	}
}

// TestCanonicalQueryOrder: pairs are sorted by key, then by value, as
// SigV4 (and so the server) orders them, also where a key is a prefix of
// another: "a=" sorted as a string would follow "a-b=" and "a1=", whose
// bytes '-' and '1' sort before '='.
func TestCanonicalQueryOrder(t *testing.T) {
	q := url.Values{"a-b": {"1"}, "a": {"z", "y"}, "a1": {"0"}, "b": {""}}
	if got, want := CanonicalQuery(q), "a=y&a=z&a-b=1&a1=0&b="; got != want {
		t.Fatalf("CanonicalQuery = %q, want %q", got, want)
	}
}
