package s3remote

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Scheme is the URL scheme of S3 remotes: s3://BUCKET[/PREFIX].
const Scheme = "s3"

// DefaultRegion is the signing region when neither AWS_REGION nor
// AWS_DEFAULT_REGION is set; S3-compatible servers accept any region.
const DefaultRegion = "us-east-1"

// Config says which bucket and prefix hold a remote and how to reach and
// sign for the server. ConfigFromEnv fills it the way the AWS tools do.
type Config struct {
	// Bucket is the S3 bucket.
	Bucket string
	// Prefix is the key prefix of the remote inside the bucket, without
	// leading or trailing slash; "" is the bucket's root.
	Prefix string
	// Endpoint is the server's base URL (https, or http to a literal
	// loopback IP); "" means AWS S3 itself for Region.
	Endpoint string
	// Region is the signing region.
	Region string
	// AccessKeyID, SecretAccessKey and SessionToken are the credentials.
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
	// HTTPClient overrides the HTTP client (nil: one with net/http's
	// default transport settings, a one-minute response-header timeout
	// and answers' headers bounded to wire.MaxReplyHeader bytes).
	HTTPClient *http.Client
}

// ParseURL splits an s3://BUCKET[/PREFIX] URL. The bucket must be a valid
// S3 bucket name; the prefix's segments must be non-empty and neither "."
// nor "..", and a trailing slash is dropped. Query strings, fragments,
// user info and ports are refused: the endpoint is configured apart.
func ParseURL(raw string) (bucket, prefix string, err error) {
	rest, ok := strings.CutPrefix(raw, Scheme+"://")
	if !ok {
		return "", "", fmt.Errorf("%w: %q: want s3://BUCKET[/PREFIX]", ErrBadURL, raw)
	}
	if strings.ContainsAny(rest, "?#@:\\") {
		return "", "", fmt.Errorf("%w: %q: no user, port, query or fragment in an s3 URL (the server is --endpoint or AWS_ENDPOINT_URL)", ErrBadURL, raw)
	}
	bucket, prefix, _ = strings.Cut(rest, "/")
	if !validBucket(bucket) {
		return "", "", fmt.Errorf("%w: %q: bucket %q is not a valid S3 bucket name (3-63 characters of a-z, 0-9, '.', '-')", ErrBadURL, raw, bucket)
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if prefix != "" {
		for _, seg := range strings.Split(prefix, "/") {
			if seg == "" || seg == "." || seg == ".." || !validPrefixSegment(seg) {
				return "", "", fmt.Errorf("%w: %q: prefix segment %q must be non-empty, not . or .., and use only A-Z a-z 0-9 . _ -", ErrBadURL, raw, seg)
			}
		}
	}
	return bucket, prefix, nil
}

// validBucket applies S3's bucket naming rules (the subset every
// S3-compatible server accepts).
func validBucket(b string) bool {
	if len(b) < 3 || len(b) > 63 {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	first, last := b[0], b[len(b)-1]
	return first != '.' && first != '-' && last != '.' && last != '-' && !strings.Contains(b, "..")
}

// validPrefixSegment keeps prefixes to characters that need no escaping in
// any S3 implementation.
func validPrefixSegment(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ConfigFromEnv builds the Config of remote URL raw from the standard AWS
// environment variables read through getenv: AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (credentials), AWS_REGION
// then AWS_DEFAULT_REGION (region, else DefaultRegion), and the endpoint:
// endpoint if non-empty (the --endpoint flag), else AWS_ENDPOINT_URL_S3,
// else AWS_ENDPOINT_URL, else AWS S3. Shared config files, profiles and
// instance metadata are not read. Missing credentials are refused here,
// before any request.
func ConfigFromEnv(raw, endpoint string, getenv func(string) string) (Config, error) {
	bucket, prefix, err := ParseURL(raw)
	if err != nil {
		return Config{}, err
	}
	c := Config{Bucket: bucket, Prefix: prefix,
		AccessKeyID:     getenv("AWS_ACCESS_KEY_ID"),
		SecretAccessKey: getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken:    getenv("AWS_SESSION_TOKEN"),
		Region:          firstSet(getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION"), DefaultRegion),
		Endpoint:        firstSet(endpoint, getenv("AWS_ENDPOINT_URL_S3"), getenv("AWS_ENDPOINT_URL")),
	}
	if c.AccessKeyID == "" || c.SecretAccessKey == "" {
		return Config{}, fmt.Errorf("%w: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", ErrNoCredentials)
	}
	// These go into request headers, where net/http refuses a control
	// character only when sending, every try of every request alike.
	for _, v := range []struct{ name, val string }{
		{"AWS_ACCESS_KEY_ID", c.AccessKeyID}, {"AWS_SECRET_ACCESS_KEY", c.SecretAccessKey},
		{"AWS_SESSION_TOKEN", c.SessionToken}, {"AWS_REGION (or AWS_DEFAULT_REGION)", c.Region},
	} {
		if i := strings.IndexFunc(v.val, isControl); i >= 0 {
			return Config{}, fmt.Errorf("%w: %s holds a control character (%q at byte %d, a stray newline?): set it without", ErrBadCredentials, v.name, v.val[i], i)
		}
	}
	if c.Endpoint != "" {
		if err := CheckEndpoint(c.Endpoint); err != nil {
			return Config{}, err
		}
	}
	return c, nil
}

// firstSet returns the first non-empty string.
func firstSet(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// CheckEndpoint accepts an https URL, or an http URL whose host is a
// literal loopback IP (127.0.0.0/8, ::1), with no path, query, fragment
// or user info: the same rule as OpenTine's HTTP remotes, so objects never
// cross a network unencrypted.
func CheckEndpoint(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %q: %v", ErrBadEndpoint, raw, err)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || strings.Trim(u.Path, "/") != "" {
		return fmt.Errorf("%w: %q: want SCHEME://HOST[:PORT] and nothing more", ErrBadEndpoint, raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("%w: %q: plain http only to a literal loopback IP (127.0.0.1, ::1); use https", ErrBadEndpoint, raw)
	}
	return fmt.Errorf("%w: %q: scheme must be https (or http to a loopback IP)", ErrBadEndpoint, raw)
}

// isControl reports an ASCII control character.
func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
