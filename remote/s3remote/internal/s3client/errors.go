package s3client

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Sentinel errors of package s3client.
var (
	// ErrBadAnswer reports a success answer that is not what S3 sends:
	// malformed XML, a listing over MaxListBytes, a page that says more
	// follows without saying where.
	ErrBadAnswer = errors.New("malformed S3 answer")
	// errAttemptOver is what a body reader left behind by an ended try
	// reads.
	errAttemptOver = errors.New("read of a request body after its try ended")
)

// maxErrorBody bounds the error answer read (S3's are a few hundred bytes).
const maxErrorBody = 64 << 10

// Error is an S3 error answer: the HTTP status and S3's error code and
// message (the code is the status text without spaces when the answer
// has no body, as for HEAD).
type Error struct {
	Status  int
	Code    string
	Message string
	// Region is the bucket's region when the answer named it
	// (X-Amz-Bucket-Region: S3 says so to a request signed for another).
	Region string
	// Date is the server's clock when the answer said it (its Date
	// header), else zero: a refusal without a body can be told apart as
	// a clock skew only by it.
	Date time.Time
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%d %s", e.Status, e.Code)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// HTTPStatusCode returns the HTTP status of the answer.
func (e *Error) HTTPStatusCode() int { return e.Status }

// ErrorCode returns S3's error code ("NoSuchKey").
func (e *Error) ErrorCode() string { return e.Code }

// ErrorMessage returns S3's message, one line.
func (e *Error) ErrorMessage() string { return e.Message }

// errorBody is S3's error document.
type errorBody struct {
	XMLName xml.Name `xml:"Error"`
	Code    string   `xml:"Code"`
	Message string   `xml:"Message"`
}

// readError builds the *Error of a non-2xx answer from at most
// maxErrorBody bytes of its body. A body that is not S3's error XML (a
// proxy's HTML page, a truncated answer) keeps the status-derived code and
// says so in the message rather than passing the body on.
func readError(resp *http.Response) error {
	e := &Error{Status: resp.StatusCode, Code: strings.ReplaceAll(http.StatusText(resp.StatusCode), " ", "")}
	if e.Code == "" {
		e.Code = "UnknownError"
	}
	if r := resp.Header.Get("X-Amz-Bucket-Region"); validRegion(r) {
		e.Region = r
	}
	if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		e.Date = d
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	switch {
	case err != nil:
		e.Message = "reading the error answer: " + err.Error()
	case len(data) > maxErrorBody:
		e.Message = fmt.Sprintf("error answer over %d bytes, not read", maxErrorBody)
	case len(strings.TrimSpace(string(data))) == 0:
	default:
		var b errorBody
		if xml.Unmarshal(data, &b) != nil || b.Code == "" {
			e.Message = "the error answer is not S3 error XML"
			break
		}
		e.Code = oneLine(b.Code, 64)
		e.Message = oneLine(b.Message, 512)
	}
	return e
}

// oneLine keeps the first line of a server's text, at most n bytes, with
// control characters dropped: it ends up in a one-line CLI error.
func oneLine(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		s = s[:n] + "..."
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}
