package llm

import (
	"context"
	"errors"
	"github.com/tinehq/tine/internal/rawreply"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/tinehq/tine/internal/httplimit"
)

// checkShown fails unless msg is at most maxErrorText bytes and the note
// of what was cut, valid UTF-8 without control or format characters.
func checkShown(t *testing.T, msg string) {
	t.Helper()
	if len(msg) > maxErrorText+len("... (NNNNNNN more bytes not shown)") {
		t.Errorf("error of %d bytes: %.300q...", len(msg), msg)
	}
	if !utf8.ValidString(msg) {
		t.Errorf("error is not UTF-8: %.300q", msg)
	}
	for _, r := range msg {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			t.Errorf("error holds %U: %.300q", r, msg)
			break
		}
	}
}

// TestHostileReply: an answer whose status or header line is malformed
// (an escape sequence, a bidi override, a line of 40 KiB), whose header
// block is over httplimit.MaxReplyHeader (net/http's default would read
// 1 MiB), or whose error body carries an escape sequence, fails the call
// with an error that says what was wrong in a bounded line that cannot
// drive the terminal it is shown on, and keeps its kind.
func TestHostileReply(t *testing.T) {
	long := "X-Evil\x1b]2;owned\x07\x1b[31m\u202e\xff" + strings.Repeat("A", 40<<10) + "\r\n"
	var big strings.Builder
	for big.Len() <= httplimit.MaxReplyHeader {
		big.WriteString("X-Pad: " + strings.Repeat("p", 100) + "\r\n")
	}
	body := okChat
	errBody := "boom\x1b]2;owned\x07\u202e\u2066" + testKey
	for _, tc := range []struct {
		name, reply string
		kind        error
		want        []string
	}{
		{"malformed header line", "HTTP/1.1 200 OK\r\n" + long + "Content-Length: 0\r\n\r\n",
			ErrTransport, []string{"malformed MIME header", `X-Evil\x1b]2;owned\a\x1b[31m\u202e\xffAAA`, "more bytes not shown"}},
		{"malformed status", "HTTP/1.1 2\x1b[2J" + strings.Repeat("0", 40<<10) + " OK\r\nContent-Length: 0\r\n\r\n",
			ErrTransport, []string{"malformed HTTP status code", `2\x1b[2J000`, "more bytes not shown"}},
		{"header block over the bound", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + big.String() +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body,
			ErrTransport, []string{"server response headers exceeded 65536 bytes"}},
		{"error body", "HTTP/1.1 500 Internal Server Error\r\nContent-Length: " + strconv.Itoa(len(errBody)) + "\r\n\r\n" + errBody,
			ErrStatus, []string{`HTTP 500: boom\x1b]2;owned\x07\u202e\u2066[REDACTED]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := "http://" + rawreply.Serve(t, tc.reply) + "/v1"
			_, err := OpenAIChat(context.Background(), Request{BaseURL: base, Key: testKey, Model: "m", User: "u"})
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.kind) || !Transient(err) {
				t.Errorf("error %.200q is not %v, or not transient", err, tc.kind)
			}
			msg := err.Error()
			checkShown(t, msg)
			want := tc.want
			if tc.kind == ErrTransport { // a StatusError names no URL
				want = append(want, "POST "+base+"/chat/completions: ")
			}
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %.400q does not say %q", msg, w)
				}
			}
		})
	}
}

// TestPlainErrorsUnchanged: an error whose text is printable and short
// is returned as it is, not wrapped.
func TestPlainErrorsUnchanged(t *testing.T) {
	err := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	if showable(err) != err {
		t.Fatal("a plain error was wrapped")
	}
	if got := quote([]byte("  rate   limited\n for "+testKey+" ünïcødé "), testKey); got != "rate limited for [REDACTED] ünïcødé" {
		t.Fatalf("quote: %q", got)
	}
}

// TestDefaultTransportBoundsHeader: the client used when a Request names
// none bounds answers' header blocks to httplimit.MaxReplyHeader.
func TestDefaultTransportBoundsHeader(t *testing.T) {
	tr, ok := defaultClient.Transport.(*http.Transport)
	if !ok || tr.MaxResponseHeaderBytes != httplimit.MaxReplyHeader {
		t.Fatalf("default transport %T does not bound the header block to %d", defaultClient.Transport, httplimit.MaxReplyHeader)
	}
}
