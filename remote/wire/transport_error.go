package wire

import (
	"github.com/tinehq/tine/internal/httplimit"
	"github.com/tinehq/tine/internal/textsafe"
)

// MaxReplyHeader bounds the header block (status line and fields) of a
// reply a tine HTTP client reads: the transports the remote packages
// build set it as MaxResponseHeaderBytes (remote/httpclient, the S3
// client, tine serve's fetch of an OIDC key set). It is
// httplimit.MaxReplyHeader, the bound the model clients of internal/llm
// share, which says why 64 KiB.
const MaxReplyHeader = httplimit.MaxReplyHeader

// TransportError returns err, the error of an HTTP exchange that got no
// usable reply (refused or broken connection, timeout, a reply whose
// status line or header net/http could not read), as a client may show
// it. net/http quotes the server's malformed line whole into its error,
// up to MaxReplyHeader bytes of it, so a server could flood the user's
// terminal through the message. err is returned as it is when its text
// passes CheckReplyText (the usual case); otherwise the error returned
// says the same up to MaxRefusalMessage bytes, with every character
// CheckReplyText refuses escaped (\x1b, \u202e), and how many bytes were
// left out. errors.Is and errors.As see err either way.
func TransportError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if CheckReplyText(msg) == nil {
		return err
	}
	return &transportError{msg: textsafe.Clip(msg, MaxRefusalMessage), err: err}
}

// transportError is TransportError's error: err, shown as msg.
type transportError struct {
	msg string
	err error
}

func (e *transportError) Error() string { return e.msg }
func (e *transportError) Unwrap() error { return e.err }
