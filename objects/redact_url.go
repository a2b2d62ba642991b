package objects

import "bytes"

// schemeSep is in every URL whose credentials redactURLCredentials scrubs.
var schemeSep = []byte("://")

// redactURLCredentials replaces the password of every
// "scheme://user:password@host" in b with the marker, keeping the scheme,
// the user and the host so the text stays useful:
// "postgres://app:hunter2@db/main" becomes
// "postgres://app:[REDACTED]@db/main". A user without a password
// ("ssh://git@host") is not a secret and stays. The authority ends at '/',
// '?', '#' or a byte that ends an unquoted value; its last '@' ends the
// user information, since a password may hold an unescaped '@'. The scan
// is linear (each authority is read once) and idempotent. It returns b
// itself when nothing changes.
func redactURLCredentials(b []byte) []byte {
	if !bytes.Contains(b, schemeSep) || bytes.IndexByte(b, '@') < 0 {
		return b
	}
	var out []byte // nil until the first replacement
	done := 0      // b[:done] is settled (copied to out when out != nil)
	for i := 0; i+len(schemeSep) <= len(b); {
		j := bytes.Index(b[i:], schemeSep)
		if j < 0 {
			break
		}
		sep := i + j
		auth := sep + len(schemeSep)
		end := authorityEnd(b, auth)
		i = max(end, auth)
		if !hasScheme(b, sep, done) {
			continue
		}
		at := bytes.LastIndexByte(b[auth:end], '@')
		if at < 0 {
			continue
		}
		colon := bytes.IndexByte(b[auth:auth+at], ':')
		if colon < 0 {
			continue
		}
		pw := b[auth+colon+1 : auth+at]
		if len(pw) == 0 || string(pw) == Redacted {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b))
		}
		out = append(out, b[done:auth+colon+1]...)
		out = append(out, Redacted...)
		done = auth + at
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

// hasScheme reports whether a URL scheme (RFC 3986: a letter, then
// letters, digits, '+', '-' or '.') ends just before sep, looking no
// further back than floor.
func hasScheme(b []byte, sep, floor int) bool {
	k := sep
	for k > floor && (isASCIIUpper(b[k-1]) || isASCIILower(b[k-1]) || isASCIIDigit(b[k-1]) ||
		b[k-1] == '+' || b[k-1] == '-' || b[k-1] == '.') {
		k--
	}
	for k < sep && !isASCIIUpper(b[k]) && !isASCIILower(b[k]) {
		k++ // the scheme starts at its first letter ("1https" is "https")
	}
	return k < sep
}

// authorityEnd returns the index just past the URL authority that starts
// at i: the first '/', '?', '#' or byte that ends an unquoted value.
func authorityEnd(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '/' || c == '?' || c == '#' || c == '\\' || c == '"' || c == '\'':
			return i
		case c <= ' ' || c == 0x7f:
			return i
		case c == '`' || c == '<' || c == '>' || c == '{' || c == '}' || c == '|':
			return i
		}
	}
	return i
}
