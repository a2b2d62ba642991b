package s3client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go/logging"
)

// The vectors below are the published examples of AWS's S3 documentation
// ("Signature Calculations for the Authorization Header: Transferring
// Payload in a Single Chunk"): the documented example credentials,
// bucket, date and requests, and the signatures AWS gives for them.
var (
	exampleCreds = aws.Credentials{AccessKeyID: "AKIAIOSFODNN7EXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}
)

// exampleClock is the documented examples' signing time.
func exampleClock() time.Time { return time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC) }

func exampleRequest(t *testing.T, method, rawURL string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// logCanonical returns a signer option that stores the canonical request
// the SDK's signer built in *canon (it logs it with the string to sign).
func logCanonical(canon *string) func(*v4.SignerOptions) {
	return func(o *v4.SignerOptions) {
		o.LogSigning = true
		o.Logger = logging.LoggerFunc(func(_ logging.Classification, _ string, v ...interface{}) {
			if len(v) > 0 {
				*canon, _ = v[0].(string)
			}
		})
	}
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

// TestSignAWSExamples: the four S3 examples of AWS's documentation,
// signed by the client's signing step (the SDK's SigV4 signer set up for
// S3, the payload hash declared), give the documented signatures: GET with a Range header, PUT with the
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
	client := New(Options{Region: "us-east-1", Credentials: exampleCreds})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := exampleRequest(t, c.method, c.url)
			if c.method == "PUT" {
				req.URL.RawPath = EscapePath(req.URL.Path)
			}
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			var canon string
			if err := client.sign(context.Background(), req, c.payload, exampleClock(), logCanonical(&canon)); err != nil {
				t.Fatal(err)
			}
			sig, signed := signature(t, req)
			if signed != c.signed || sig != c.sig {
				t.Fatalf("signed headers %q, signature %s\nwant %q, %s\ncanonical request:\n%s", signed, sig, c.signed, c.sig, canon)
			}
		})
	}
}

// TestCanonicalRequestEncoding: the client's request builder encodes
// keys exactly once with '/' kept in the path (a '%' in a key is %25,
// never %2525), and the signer sorts and encodes the query with '/' as
// %2F, '+' as %2B and ' ' as %20 (a continuation token and a prefix) and
// sends it as signed; a session token is sent and signed.
func TestCanonicalRequestEncoding(t *testing.T) {
	creds := exampleCreds
	creds.SessionToken = "token/with+chars="
	c := New(Options{Endpoint: "https://s3.example", Region: "us-east-1", Credentials: creds})
	r := &request{op: "GetObject", method: http.MethodGet, bucket: "bucket", key: "team a/refs/heads/x%y+z",
		query: map[string][]string{"list-type": {"2"}, "prefix": {"team a/refs/"}, "continuation-token": {"1/a+b=="}}}
	var canon string
	req, err := c.build(context.Background(), r, nil, exampleClock, logCanonical(&canon))
	if err != nil {
		t.Fatal(err)
	}
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
	if !strings.Contains(req.Header.Get("Authorization"), "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,") ||
		req.Header.Get("X-Amz-Security-Token") != creds.SessionToken {
		t.Fatalf("session token not sent and signed: %v", req.Header)
	}
	if got := req.URL.String(); got != "https://s3.example/bucket/team%20a/refs/heads/x%25y%2Bz?continuation-token=1%2Fa%2Bb%3D%3D&list-type=2&prefix=team%20a%2Frefs%2F" {
		t.Fatalf("sent URL %s differs from the signed one", got)
	}
}

// TestSignUnsignedPayload: a PUT over https is signed with
// UNSIGNED-PAYLOAD, says so in X-Amz-Content-Sha256 and ends its
// canonical request with it; its conditional header and length are
// signed.
func TestSignUnsignedPayload(t *testing.T) {
	c := New(Options{Region: "us-east-1", Credentials: exampleCreds})
	r := &request{op: "PutObject", method: http.MethodPut, bucket: "examplebucket", key: "refs/heads/main",
		header: map[string]string{"If-Match": `"abc"`}, body: strings.NewReader("x\n"), size: 2}
	var canon string
	req, err := c.build(context.Background(), r, strings.NewReader("x\n"), exampleClock, logCanonical(&canon))
	if err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("X-Amz-Content-Sha256") != UnsignedPayload || !strings.HasSuffix(canon, "\n"+UnsignedPayload) {
		t.Fatalf("unsigned payload not declared:\n%s", canon)
	}
	if _, signed := signature(t, req); signed != "content-length;host;if-match;x-amz-content-sha256;x-amz-date" {
		t.Fatalf("signed headers %q", signed)
	}
}

// TestCanonicalQueryOrder: query pairs are signed and sent sorted by key,
// then by value, as SigV4 (and so the server) orders them, also where a
// key is a prefix of another: "a=" sorted as a string would follow "a-b="
// and "a1=", whose bytes '-' and '1' sort before '='.
func TestCanonicalQueryOrder(t *testing.T) {
	c := New(Options{Endpoint: "https://s3.example", Region: "us-east-1", Credentials: exampleCreds})
	r := &request{op: "ListObjectsV2", method: http.MethodGet, bucket: "b",
		query: map[string][]string{"a-b": {"1"}, "a": {"z", "y"}, "a1": {"0"}, "b": {""}}}
	var canon string
	req, err := c.build(context.Background(), r, nil, exampleClock, logCanonical(&canon))
	if err != nil {
		t.Fatal(err)
	}
	const want = "a=y&a=z&a-b=1&a1=0&b="
	if !strings.HasPrefix(canon, "GET\n/b\n"+want+"\n") || req.URL.RawQuery != want {
		t.Fatalf("sent query %q, canonical request:\n%s\nwant the query %q", req.URL.RawQuery, canon, want)
	}
}

// countingReader is a body that counts the bytes read from it.
type countingReader struct {
	r    *strings.Reader
	read int
}

func (r *countingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.read += n
	return n, err
}

func (r *countingReader) Seek(off int64, whence int) (int64, error) { return r.r.Seek(off, whence) }

// TestSigningTimeFollowsThePayloadHash: over plain http the body is
// hashed before the request is dated, so a slow hash of a large pack
// does not age the signature toward S3's 15-minute limit; and a retry
// reuses the hash instead of reading the body again.
func TestSigningTimeFollowsThePayloadHash(t *testing.T) {
	c := New(Options{Endpoint: "http://s3.example", Region: "us-east-1", Credentials: exampleCreds})
	const payload = "a pack's bytes\n"
	body := &countingReader{r: strings.NewReader(payload)}
	r := &request{op: "PutObject", method: http.MethodPut, bucket: "b", key: "packs/x", body: body, size: int64(len(payload))}
	readAtClock := -1
	clock := func() time.Time { readAtClock = body.read; return exampleClock() }
	req, err := c.build(context.Background(), r, nil, clock)
	if err != nil {
		t.Fatal(err)
	}
	if readAtClock != len(payload) {
		t.Fatalf("the request was dated after %d of the body's %d bytes were hashed", readAtClock, len(payload))
	}
	want := sha256.Sum256([]byte(payload))
	if got := req.Header.Get("X-Amz-Content-Sha256"); got != hex.EncodeToString(want[:]) {
		t.Fatalf("payload hash %s, want %x", got, want)
	}
	if _, err := c.build(context.Background(), r, nil, clock); err != nil {
		t.Fatal(err)
	}
	if body.read != len(payload) {
		t.Fatalf("the retry read the body again for its hash: %d bytes read in all", body.read)
	}
}
