package s3client

import (
	"context"
	"net/http"
	"strings"
	"time"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// EmptyPayloadHash is the hex SHA-256 of no bytes: the payload hash of
// every request without a body.
const EmptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// UnsignedPayload is the payload hash of a request whose body the
// signature does not cover (sent only over https, where TLS protects it).
const UnsignedPayload = "UNSIGNED-PAYLOAD"

// signingService is the service name of S3 in a SigV4 credential scope.
const signingService = "s3"

// newSigner returns the AWS SDK's SigV4 signer set up as the SDK's own S3
// client sets it: the path is signed as sent (S3 keys are escaped once,
// by EscapePath, not a second time by the signer).
func newSigner() *v4.Signer {
	return v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
}

// sign adds AWS Signature Version 4 header authentication for S3 to req
// with the SDK's signer: X-Amz-Content-Sha256 (payloadHash: the body's
// hex SHA-256, EmptyPayloadHash or UnsignedPayload), which S3 requires
// and the signer leaves to the caller, then X-Amz-Date,
// X-Amz-Security-Token when creds has one, and Authorization. The signer
// signs Host, Content-Length and every header already on req but
// Authorization, User-Agent, Expect, Transfer-Encoding and
// X-Amzn-Trace-Id, and rewrites req's query into the canonical order and
// encoding it signed, so what is signed is what is sent. opts are extra
// signer options (the tests' logger of the canonical request).
func (c *Client) sign(ctx context.Context, req *http.Request, payloadHash string, now time.Time, opts ...func(*v4.SignerOptions)) error {
	req.Header.Set("X-Amz-Content-Sha256", payloadHash)
	return c.signer.SignHTTP(ctx, c.opt.Credentials, req, payloadHash, signingService, c.opt.Region, now, opts...)
}

// EscapePath percent-encodes an object key for the URL path, once, every
// byte but the unreserved ones (A-Z a-z 0-9 - . _ ~) and '/', as SigV4
// wants S3 paths: '%' is %25, ' ' %20, '+' %2B.
func EscapePath(key string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '/' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}
