package s3client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// EmptyPayloadHash is the hex SHA-256 of no bytes: the payload hash of
// every request without a body.
const EmptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// UnsignedPayload is the payload hash of a request whose body the
// signature does not cover (sent only over https, where TLS protects it).
const UnsignedPayload = "UNSIGNED-PAYLOAD"

// Credentials are static AWS credentials; SessionToken is set only for
// temporary ones.
type Credentials struct {
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
}

// unsigned reports the headers left out of the signature: hop-by-hop or
// rewritten on the way (a proxy may change them without changing the
// request). A switch, not a map: nothing to build when a process starts.
func unsigned(lower string) bool {
	switch lower {
	case "authorization", "user-agent", "expect", "content-length",
		"transfer-encoding", "connection", "accept-encoding", "x-amzn-trace-id":
		return true
	}
	return false
}

// Sign adds AWS Signature Version 4 header authentication for S3 to req:
// X-Amz-Date, X-Amz-Content-Sha256 (payloadHash: the body's hex SHA-256,
// EmptyPayloadHash or UnsignedPayload), X-Amz-Security-Token when creds
// has one, and Authorization. Every header already on req is signed (but
// hop-by-hop ones), with Host. The path is signed as sent
// (req.URL.EscapedPath(): S3 keys are encoded once, '/' kept); the query
// is re-encoded canonically.
func Sign(req *http.Request, creds Credentials, region, payloadHash string, now time.Time) {
	stamp := now.UTC().Format("20060102T150405Z")
	day := stamp[:8]
	req.Header.Set("X-Amz-Date", stamp)
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	if creds.SessionToken != "" {
		req.Header.Set("X-Amz-Security-Token", creds.SessionToken)
	}
	canon, signed := canonicalRequest(req, payloadHash)
	scope := day + "/" + region + "/s3/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + stamp + "\n" + scope + "\n" + hexSHA256([]byte(canon))
	key := hmacSHA256([]byte("AWS4"+creds.SecretAccessKey), day)
	key = hmacSHA256(key, region)
	key = hmacSHA256(key, "s3")
	key = hmacSHA256(key, "aws4_request")
	sig := hex.EncodeToString(hmacSHA256(key, toSign))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+creds.AccessKeyID+"/"+scope+
		", SignedHeaders="+signed+", Signature="+sig)
}

// canonicalRequest returns SigV4's canonical request of req and its list
// of signed headers.
func canonicalRequest(req *http.Request, payloadHash string) (string, string) {
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	vals := map[string]string{"host": host}
	for k, vs := range req.Header {
		lk := strings.ToLower(k)
		if unsigned(lk) {
			continue
		}
		trimmed := make([]string, len(vs))
		for i, v := range vs {
			trimmed[i] = strings.Join(strings.Fields(v), " ")
		}
		vals[lk] = strings.Join(trimmed, ",")
	}
	names := make([]string, 0, len(vals))
	for k := range vals {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(req.Method + "\n")
	path := req.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	b.WriteString(path + "\n")
	b.WriteString(CanonicalQuery(req.URL.Query()) + "\n")
	for _, k := range names {
		b.WriteString(k + ":" + vals[k] + "\n")
	}
	signed := strings.Join(names, ";")
	b.WriteString("\n" + signed + "\n" + payloadHash)
	return b.String(), signed
}

// CanonicalQuery encodes q as SigV4 wants it: keys and values
// percent-encoded (everything but A-Z a-z 0-9 - . _ ~, so '/' is %2F and
// ' ' %20), pairs sorted by key then value, a key without value as
// "key=". The same string is sent, so what is signed is what is sent.
func CanonicalQuery(q url.Values) string {
	// Sorted as pairs, not as "k=v" strings: "a=" would sort after
	// "a-b=" and "a1=" ('-' and '1' are below '='), the server's order not.
	pairs := make([][2]string, 0, len(q))
	for k, vs := range q {
		for _, v := range vs {
			pairs = append(pairs, [2]string{escape(k, true), escape(v, true)})
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i][0] != pairs[j][0] {
			return pairs[i][0] < pairs[j][0]
		}
		return pairs[i][1] < pairs[j][1]
	})
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p[0] + "=" + p[1])
	}
	return b.String()
}

// EscapePath percent-encodes an object key for the URL path, once, every
// byte but the unreserved ones and '/'.
func EscapePath(key string) string { return escape(key, false) }

// escape percent-encodes s (upper-case hex), keeping unreserved bytes
// and, unless slash is true, '/'.
func escape(s string, slash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || (c == '/' && !slash) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

func hexSHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
