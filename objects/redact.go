package objects

import (
	"strings"
)

// Redacted is the string a writer stores in place of a secret (SPEC §1.7).
const Redacted = "[REDACTED]"

// MaxRedactDepth bounds the value walk. It is deeper than MaxJSONDepth on
// purpose: anything the walk leaves untouched below it cannot be stored,
// because the v3 canonicalizer refuses depth 512 first (SPEC §1.7, §0.2).
const MaxRedactDepth = 768

// credentialNames are the normalised key names that always name a secret
// (SPEC §1.7 CREDENTIAL_NAMES, the newest list). A name with one trailing
// "s" dropped counts too ("passwords", "cookies").
var credentialNames = setOf(
	"api_key", "apikey", "api_token", "access_key", "secret_access_key", "secret_key",
	"access_token", "refresh_token", "auth_token", "bearer_token", "id_token", "session_token",
	"password", "passwd", "passphrase", "secret", "client_secret", "private_key",
	"credential", "credentials", "authorization", "proxy_authorization", "cookie", "set_cookie",
	"jwt", "bearer", "x_amz_security_token", "ocp_apim_subscription_key", "pwd",
	"connection_string", "conn_str", "dsn", "webhook_url", "private_key_id",
)

// secretSuffixes are the normalised endings that make a key secret (SPEC
// §1.7 SECRET_SUFFIXES). The bare "_token" ending is kept apart in
// isTokenish, because only it carries the numeric-counter exemption.
var secretSuffixes = []string{
	"_api_key", "_api_token", "_access_key", "_access_token", "_authorization", "_auth_token",
	"_bearer_token", "_client_secret", "_cookie", "_credential", "_credentials", "_id_token",
	"_passphrase", "_password", "_passwd", "_private_key", "_proxy_authorization",
	"_refresh_token", "_secret", "_session_token", "_secret_key", "_set_cookie",
	"_account_key", "_encryption_key", "_master_key", "_signing_key", "_ssh_key",
	"_subscription_key", "_connection_string", "_dsn", "_webhook_url",
}

// compactSuffixes are secretSuffixes with the underscores removed, so that
// "OPENAIAPIKEY" or "xApikey" still end with "apikey" (SPEC §1.7: the
// compacted form ends with the compacted suffix).
var compactSuffixes = func() []string {
	out := make([]string, len(secretSuffixes))
	for i, s := range secretSuffixes {
		out[i] = compact(s)
	}
	return out
}()

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// secrecy is how a key name classifies.
type secrecy uint8

const (
	// notSecret: the name names no credential.
	notSecret secrecy = iota
	// tokenish: the name is "token" or merely ends in "token" ("csrf_token",
	// "max_token"). Its value is a secret unless it is a number: a count of
	// tokens must survive or every usage report breaks (SPEC §1.7).
	tokenish
	// secret: the value is a credential whatever its type.
	secret
)

// redacts reports whether a value of the given secrecy is replaced.
func (s secrecy) redacts(v Value) bool {
	switch s {
	case secret:
		return true
	case tokenish:
		return !v.IsNumber()
	}
	return false
}

// classifyName normalises a key name and classifies it (SPEC §1.7).
func classifyName(raw string) secrecy {
	name := NormalizeKeyName(raw)
	if name == "" {
		return notSecret
	}
	if credentialNames[name] || (strings.HasSuffix(name, "s") && credentialNames[name[:len(name)-1]]) {
		return secret
	}
	// Matching the compacted forms also covers the plain suffixes: a name
	// that ends in "_api_key" compacts to one that ends in "apikey".
	c := compact(name)
	for _, suf := range compactSuffixes {
		if strings.HasSuffix(c, suf) {
			return secret
		}
	}
	// "_token" is a SECRET_SUFFIX too; its compacted form "token" also
	// covers the bare name "token" and run-together names like "csrftoken".
	if strings.HasSuffix(c, "token") {
		return tokenish
	}
	return notSecret
}

// NormalizeKeyName returns the form of a key name the SPEC §1.7 lists are
// matched against: surrounding whitespace and quotes stripped, camelCase
// split into "_" parts ("apiKey" -> "api_key", "APIKey" -> "api_key"),
// lower-cased, and "-" turned into "_" ("X-Amz-Security-Token" ->
// "x_amz_security_token").
func NormalizeKeyName(name string) string {
	name = strings.Trim(name, " \t\r\n\f\v\"'`")
	var b strings.Builder
	b.Grow(len(name) + 4)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if isASCIIUpper(c) && i > 0 {
			prev := name[i-1]
			// A word starts at an upper-case letter after a lower-case
			// letter or digit, or at the last capital of an acronym that a
			// lower-case letter follows ("XAmz" -> "X_Amz").
			if isASCIILower(prev) || isASCIIDigit(prev) ||
				(isASCIIUpper(prev) && i+1 < len(name) && isASCIILower(name[i+1])) {
				b.WriteByte('_')
			}
		}
		b.WriteByte(c)
	}
	return strings.ReplaceAll(strings.ToLower(b.String()), "-", "_")
}

// compact drops the underscores of a normalised name.
func compact(name string) string { return strings.ReplaceAll(name, "_", "") }

func isASCIIUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isASCIILower(c byte) bool { return 'a' <= c && c <= 'z' }
func isASCIIDigit(c byte) bool { return '0' <= c && c <= '9' }

// RedactObject is the writer path for a json object (SPEC §1.7 before
// §1.3): it redacts v, then canonicalises and names the result, so the oid
// names the scrubbed bytes and no secret reaches a digest.
func RedactObject(a Algo, t Type, schema int64, v Value) (*Object, error) {
	rv, _ := RedactValue(v)
	return NewJSONObject(a, t, schema, rv)
}

// RedactBlobObject is the writer path for a blob: the byte scrubber runs,
// then the oid names the scrubbed bytes (SPEC §1.7).
func RedactBlobObject(a Algo, schema int64, data []byte) (*Object, error) {
	return NewObjectFromBody(a, TypeBlob, schema, RedactBlob(data))
}
