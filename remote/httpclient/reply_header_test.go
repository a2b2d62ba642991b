package httpclient_test

import (
	"context"
	"github.com/tinehq/tine/internal/rawreply"
	"strings"
	"testing"
	"unicode"

	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/wire"
)

// shownBytes bounds an error line about a hostile reply: the request
// (method and URL) and at most wire.MaxRefusalMessage bytes of the
// transport's words, with the note of what was left out.
const shownBytes = 200 + wire.MaxRefusalMessage

// checkShown fails unless msg is bounded and holds no control or format
// character.
func checkShown(t *testing.T, msg string) {
	t.Helper()
	if len(msg) > shownBytes {
		t.Errorf("error of %d bytes, want at most %d: %.300q...", len(msg), shownBytes, msg)
	}
	for _, r := range msg {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			t.Errorf("error holds %U: %.300q", r, msg)
			break
		}
	}
}

// TestHostileReplyHeader: a reply whose header is malformed (an escape
// sequence, a bidi override and a line of 40 KiB) or larger than
// wire.MaxReplyHeader is an error that names the remote and what was
// wrong, within a bounded line that cannot drive the user's terminal:
// net/http quotes the malformed line whole into its error, and by default
// reads header blocks up to 1 MiB.
func TestHostileReplyHeader(t *testing.T) {
	long := "X-Evil\x1b]2;owned\x07\x1b[31m\u202e" + strings.Repeat("A", 40<<10) + "\r\n"
	var big strings.Builder
	for big.Len() <= wire.MaxReplyHeader {
		big.WriteString("X-Pad: " + strings.Repeat("p", 100) + "\r\n")
	}
	for _, tc := range []struct {
		name, reply string
		want        []string
	}{
		{"malformed line", "HTTP/1.1 200 OK\r\n" + long + "Content-Length: 0\r\n\r\n",
			[]string{"malformed MIME header", "more bytes not shown"}},
		{"malformed status", "HTTP/1.1 2\x1b[2J" + strings.Repeat("0", 40<<10) + " OK\r\nContent-Length: 0\r\n\r\n",
			[]string{"malformed HTTP status code", "more bytes not shown"}},
		{"too large", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + big.String() +
			"Content-Length: 11\r\n\r\n{\"refs\":{}}",
			[]string{"server response headers exceeded 65536 bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := rawreply.Serve(t, tc.reply)
			c, err := httpclient.New("http://"+addr+"/v1/tenants/acme", httpclient.Options{Token: testToken})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Refs(context.Background())
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			checkShown(t, msg)
			for _, w := range append([]string{"GET http://" + addr + "/v1/tenants/acme/refs: "}, tc.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %.400q does not say %q", msg, w)
				}
			}
		})
	}
}
